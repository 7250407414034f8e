import type { DaemonLeader, DaemonRole } from '../DaemonUpdate.js';
import type { NodeEvent } from '../wire.js';

/**
 * One line of the daemon's event stream ({@link NodeEvent}, the wire contract), as far as the
 * client needs it, with the token already a `bigint`. Fields the client does not use
 * (`ts`, `id`, `reason`, `added`, …) are checked but not kept.
 */
export type DaemonEvent =
  | { readonly event: 'role'; readonly role: DaemonRole }
  | { readonly event: 'leader'; readonly leader: DaemonLeader | undefined }
  | { readonly event: 'members'; readonly version: number; readonly members: readonly string[] }
  | { readonly event: 'stopped' };

/** What {@link parseEvent} made of a line. */
export type ParsedLine =
  | { readonly kind: 'event'; readonly event: DaemonEvent }
  /** An event type of a later version of the contract: to be ignored, as the contract says. */
  | { readonly kind: 'unknown'; readonly type: string }
  | { readonly kind: 'invalid'; readonly reason: string };

const ROLES: ReadonlySet<string> = new Set<DaemonRole>(['follower', 'candidate', 'leader', 'observer']);
const DECIMAL = /^(0|[1-9][0-9]*)$/;

type Fields = Record<string, unknown>;

/**
 * Parses one line of the stream strictly: it must be a JSON object with a numeric `ts`, a
 * non-empty string `id` and a string `event`, and a known event must have every field of the
 * contract with its type. Extra fields are ignored. Never throws.
 */
export function parseEvent(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return invalid('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid('not a JSON object');
  const fields = value as Fields;
  if (typeof fields.ts !== 'number' || !Number.isFinite(fields.ts)) return invalid('`ts` is not a number');
  if (typeof fields.id !== 'string' || fields.id === '') return invalid('`id` is not a non-empty string');
  if (typeof fields.event !== 'string') return invalid('`event` is not a string');
  const event = fields.event as NodeEvent['event'];
  switch (event) {
    case 'role':
      return parseRole(fields);
    case 'leader':
      return parseLeader(fields);
    case 'members':
      return parseMembers(fields);
    case 'stopped':
      return { kind: 'event', event: { event: 'stopped' } };
    default:
      return { kind: 'unknown', type: event };
  }
}

function parseRole(fields: Fields): ParsedLine {
  const { role, previous, reason } = fields;
  if (typeof role !== 'string' || !ROLES.has(role)) return invalid('`role` is not a role');
  if (previous !== null && (typeof previous !== 'string' || !ROLES.has(previous))) return invalid('`previous` is neither a role nor null');
  if (typeof reason !== 'string') return invalid('`reason` is not a string');
  return { kind: 'event', event: { event: 'role', role: role as DaemonRole } };
}

function parseLeader(fields: Fields): ParsedLine {
  const { leader, era, nonce, token } = fields;
  if (leader === null) {
    if (era !== null || nonce !== null || token !== null) return invalid('`era`, `nonce` and `token` must be null when `leader` is');
    return { kind: 'event', event: { event: 'leader', leader: undefined } };
  }
  if (typeof leader !== 'string' || leader === '') return invalid('`leader` is neither a non-empty string nor null');
  if (!isCount(era)) return invalid('`era` is not a non-negative integer');
  if (!isCount(nonce)) return invalid('`nonce` is not a non-negative integer');
  if (typeof token !== 'string' || !DECIMAL.test(token)) return invalid('`token` is not a decimal integer string');
  return { kind: 'event', event: { event: 'leader', leader: { id: leader, era, nonce, token: BigInt(token) } } };
}

function parseMembers(fields: Fields): ParsedLine {
  const { version, members, added, removed } = fields;
  if (!isCount(version)) return invalid('`version` is not a non-negative integer');
  if (!isIdList(members)) return invalid('`members` is not a list of ids');
  if (!isIdList(added)) return invalid('`added` is not a list of ids');
  if (!isIdList(removed)) return invalid('`removed` is not a list of ids');
  return { kind: 'event', event: { event: 'members', version, members } };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function isIdList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((id) => typeof id === 'string' && id !== '');
}

function invalid(reason: string): ParsedLine {
  return { kind: 'invalid', reason };
}

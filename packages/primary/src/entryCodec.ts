import { isValidId } from '@roster/follower';
import { endpointProblem, utypeProblem } from './names.js';

/**
 * One row of the heartbeat table: who holds the role type, and the store time of its
 * latest heartbeat.
 */
export interface HeartbeatEntry {
  /** The id of the holder. */
  readonly id: string;
  /** The role type the entry is for. */
  readonly utype: string;
  /** The store's time (ms since the epoch) when the holder last wrote the entry. */
  readonly timestamp: number;
  /** Where the holder listens (an address, a URL), for name resolution. */
  readonly endpoint?: string;
}

/** What was found at a heartbeat key. */
export type DecodedEntry =
  | { readonly kind: 'empty' }
  | { readonly kind: 'entry'; readonly entry: HeartbeatEntry }
  | { readonly kind: 'corrupt'; readonly reason: string };

/**
 * The placeholder the store replaces by its own time when a heartbeat is written. It contains a
 * control character, which `JSON.stringify` always escapes inside strings, so it can only ever
 * occur at the `timestamp` position of an encoded entry, whatever the id or endpoint hold.
 */
export const STAMP_TOKEN = '\u0001now\u0001';

/**
 * Longest entry accepted when reading, in UTF-16 units. A valid entry is at most about 1.4 kB;
 * anything longer is garbage and is not even parsed.
 */
export const MAX_ENTRY_LENGTH = 4096;

/**
 * The entry `{id, utype, timestamp: <store time>, endpoint?}` as a template for
 * `compareAndSet(…, { stampToken: STAMP_TOKEN })`: the store writes its own time as the timestamp.
 */
export function encodeEntryTemplate(entry: Omit<HeartbeatEntry, 'timestamp'>): string {
  return encode(entry, STAMP_TOKEN);
}

/** The entry with a fixed timestamp, as stored. */
export function encodeEntry(entry: HeartbeatEntry): string {
  return encode(entry, String(entry.timestamp));
}

/**
 * Parses the value at the heartbeat key of `utype`, strictly: every known field must have its
 * type and rules, and the entry must be for `utype`. Unknown extra fields are ignored, so that a
 * newer version may add fields without older versions taking its entries for garbage (and
 * taking them over). Never throws: anything else is `corrupt`, with the reason.
 */
export function decodeEntry(raw: string | null, utype: string): DecodedEntry {
  if (raw === null) return { kind: 'empty' };
  if (raw.length > MAX_ENTRY_LENGTH) return corrupt(`${raw.length} characters, over the limit of ${MAX_ENTRY_LENGTH}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return corrupt('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return corrupt('not a JSON object');
  const fields = parsed as Record<string, unknown>;
  const id = own(fields, 'id');
  const type = own(fields, 'utype');
  const timestamp = own(fields, 'timestamp');
  const endpoint = own(fields, 'endpoint');
  if (!isValidId(id)) return corrupt('id is not a node id (1 to 128 of letters, digits and . _ @ -)');
  if (utypeProblem(type) || type !== utype) return corrupt(`utype is not ${JSON.stringify(utype)}`);
  if (typeof timestamp !== 'number' || !Number.isFinite(timestamp) || timestamp < 0) {
    return corrupt('timestamp is not a finite number ≥ 0');
  }
  if (endpoint !== undefined) {
    const endpointIssue = endpointProblem(endpoint);
    if (endpointIssue) return corrupt(`endpoint is not ${endpointIssue}`);
  }
  const entry: HeartbeatEntry = { id: id as string, utype, timestamp, ...(endpoint === undefined ? {} : { endpoint: endpoint as string }) };
  return { kind: 'entry', entry };
}

function encode(entry: Omit<HeartbeatEntry, 'timestamp'>, timestamp: string): string {
  const endpoint = entry.endpoint === undefined ? '' : `,"endpoint":${JSON.stringify(entry.endpoint)}`;
  return `{"id":${JSON.stringify(entry.id)},"utype":${JSON.stringify(entry.utype)},"timestamp":${timestamp}${endpoint}}`;
}

function own(fields: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

function corrupt(reason: string): DecodedEntry {
  return { kind: 'corrupt', reason };
}

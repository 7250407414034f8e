import type { Role, RosterUpdate } from '@roster/election';
import { clockTime } from '../internal/StderrLogger.js';

/** Fields every line of `roster node --json` carries. */
interface EventBase {
  /** When the node saw it, in milliseconds since the epoch. */
  readonly ts: number;
  /** The id of the node that prints the line. */
  readonly id: string;
}

/** The node's role changed. */
export interface RoleEvent extends EventBase {
  readonly event: 'role';
  readonly role: Role;
  /** The role before; `null` on the first line, which gives the role the node starts in. */
  readonly previous: Role | null;
  /** Why: `"stale"`, `"confirmed"`, `"dethroned"`, `"lease-expired"`, `"stopped"`, … */
  readonly reason: string;
}

/** The leader this node follows (or is) changed; every field is `null` while it knows of none. */
export interface LeaderEvent extends EventBase {
  readonly event: 'leader';
  readonly leader: string | null;
  readonly era: number | null;
  readonly nonce: number | null;
  /** The fencing token as a decimal string (it can exceed 2^53). */
  readonly token: string | null;
}

/** The member list this node sees changed. */
export interface MembersEvent extends EventBase {
  readonly event: 'members';
  /** The broadcast Version the list comes from. */
  readonly version: number;
  /** Every member id, sorted. */
  readonly members: readonly string[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/** The node stopped gracefully; always the last line. */
export interface StoppedEvent extends EventBase {
  readonly event: 'stopped';
}

/**
 * One line of `roster node --json` (a public contract, see docs/cli.md). New fields may be
 * added; none is removed or renamed.
 */
export type NodeEvent = RoleEvent | LeaderEvent | MembersEvent | StoppedEvent;

/**
 * The {@link NodeEvent} for a node update, or `undefined` for updates that are not part of the
 * contract (`goodbye`, which is logged instead).
 */
export function toNodeEvent(id: string, update: RosterUpdate, ts: number): NodeEvent | undefined {
  switch (update.type) {
    case 'role':
      return { ts, id, event: 'role', role: update.role, previous: update.previous, reason: update.reason };
    case 'leader': {
      const l = update.leader;
      return { ts, id, event: 'leader', leader: l?.id ?? null, era: l?.era ?? null, nonce: l?.nonce ?? null, token: l === undefined ? null : String(l.token) };
    }
    case 'members':
      return {
        ts,
        id,
        event: 'members',
        version: update.version,
        members: update.members.map((m) => m.id),
        added: [...update.added],
        removed: [...update.removed],
      };
    case 'stopped':
      return { ts, id, event: 'stopped' };
    case 'goodbye':
      return undefined;
  }
}

/** The `--json` line for `event`: one JSON object, no newline. */
export function formatJsonEvent(event: NodeEvent): string {
  return JSON.stringify(event);
}

/**
 * A readable line for `event`, as `roster node` prints without `--json`:
 * `12:00:01.234 role follower → leader (confirmed)`.
 */
export function formatHumanEvent(event: NodeEvent): string {
  return `${clockTime(new Date(event.ts))} ${describeNodeEvent(event)}`;
}

/** What `event` says, in words and without a time: `role follower → leader (confirmed)`. */
export function describeNodeEvent(event: NodeEvent): string {
  switch (event.event) {
    case 'role':
      return event.previous === null ? `role ${event.role} (${event.reason})` : `role ${event.previous} → ${event.role} (${event.reason})`;
    case 'leader':
      return event.leader === null
        ? 'leader none'
        : `leader ${event.leader}${event.leader === event.id ? ' (this node)' : ''}, era ${event.era}, token ${event.token}`;
    case 'members': {
      const change = [...event.added.map((id) => `+${id}`), ...event.removed.map((id) => `-${id}`)].join(' ');
      return `members v${event.version} [${event.members.join(' ')}]${change ? ` ${change}` : ''}`;
    }
    case 'stopped':
      return 'stopped';
  }
}

import type { NodeEvent } from '@roster/client';
import type { RosterUpdate } from '@roster/election';
import { clockTime } from '../internal/StderrLogger.js';

// The lines are the wire contract of `@roster/client` (its types-only module): the command line
// writes exactly what the thin client reads. A type-only import: nothing of the client is loaded.
export type { NodeEvent, RoleEvent, LeaderEvent, MembersEvent, StoppedEvent } from '@roster/client';

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

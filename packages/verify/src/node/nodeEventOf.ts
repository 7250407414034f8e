import type { NodeEvent } from '@roster/client';
import type { RosterUpdate } from '@roster/election';

/**
 * The line of the JSON-lines contract (`roster node --json`, `@roster/client`'s `NodeEvent`) for a
 * node's update, or `undefined` for one the contract leaves out (`goodbye`).
 */
export function nodeEventOf(id: string, update: RosterUpdate, ts: number): NodeEvent | undefined {
  switch (update.type) {
    case 'role':
      return { ts, id, event: 'role', role: update.role, previous: update.previous, reason: update.reason };
    case 'leader': {
      const l = update.leader;
      return { ts, id, event: 'leader', leader: l?.id ?? null, era: l?.era ?? null, nonce: l?.nonce ?? null, token: l === undefined ? null : String(l.token) };
    }
    case 'members':
      return { ts, id, event: 'members', version: update.version, members: update.members.map((m) => m.id), added: [...update.added], removed: [...update.removed] };
    case 'stopped':
      return { ts, id, event: 'stopped' };
    case 'goodbye':
      return undefined;
  }
}

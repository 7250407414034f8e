import type { DaemonLeader, DaemonRole, DaemonUpdate } from '../DaemonUpdate.js';
import type { DaemonEvent } from './parseEvent.js';

/**
 * The client's only state: the last known role, leader and member list, and the updates that
 * turn it into what each event says. Every event is compared with the state, never trusted as a
 * change, so a snapshot after a reconnection yields only the differences.
 */
export class DaemonView {
  #role: DaemonRole | undefined;
  #leader: DaemonLeader | undefined;
  #members: readonly string[] = [];

  get role(): DaemonRole | undefined {
    return this.#role;
  }

  get leader(): DaemonLeader | undefined {
    return this.#leader;
  }

  /** Every member id, sorted. */
  get members(): readonly string[] {
    return this.#members;
  }

  /**
   * Forgets the role (the link is down: the daemon's node may have stopped leading, or died,
   * unseen); the next snapshot's role line is then news again.
   */
  forgetRole(): void {
    this.#role = undefined;
  }

  /** Takes `event` in; returns the updates it makes, in order (none when it changes nothing). */
  apply(event: DaemonEvent): DaemonUpdate[] {
    switch (event.event) {
      case 'role':
        if (event.role === this.#role) return [];
        this.#role = event.role;
        return [{ type: 'role', role: event.role }];
      case 'leader':
        return this.#applyLeader(event.leader);
      case 'members':
        return this.#applyMembers(event.members);
      case 'stopped':
        return [];
    }
  }

  #applyLeader(next: DaemonLeader | undefined): DaemonUpdate[] {
    const previous = this.#leader;
    if (sameLeadership(previous, next)) return [];
    this.#leader = next;
    const updates: DaemonUpdate[] = [];
    if (previous && previous.id !== next?.id) updates.push({ type: 'goodbye', leader: previous });
    updates.push({ type: 'leader', leader: next });
    return updates;
  }

  /** Deletes first, then adds, each in id order. */
  #applyMembers(list: readonly string[]): DaemonUpdate[] {
    const next = [...new Set(list)].sort();
    const before = new Set(this.#members);
    const after = new Set(next);
    this.#members = next;
    return [
      ...[...before].filter((id) => !after.has(id)).map((id): DaemonUpdate => ({ type: 'delete', id })),
      ...next.filter((id) => !before.has(id)).map((id): DaemonUpdate => ({ type: 'add', id })),
    ];
  }
}

function sameLeadership(a: DaemonLeader | undefined, b: DaemonLeader | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.id === b.id && a.era === b.era && a.nonce === b.nonce && a.token === b.token;
}

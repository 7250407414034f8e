import { type Member } from '@roster/follower';

interface Entry {
  weight: number;
  lastPingAt: number;
}

/**
 * The leader's list of active members: who joined, when each last PINGed, and who
 * must go. The leader is always a member.
 */
export class Membership {
  readonly #self: Member;
  readonly #entries = new Map<string, Entry>();

  constructor(self: Member, now: number, inherited: readonly Member[] = []) {
    this.#self = self;
    for (const m of inherited) if (m.id !== self.id) this.#entries.set(m.id, { weight: m.weight, lastPingAt: now });
  }

  /** Adds joiners (or updates their weight); returns the ids that are new. */
  admit(joiners: readonly Member[], now: number): string[] {
    const added: string[] = [];
    for (const m of joiners) {
      if (m.id === this.#self.id) continue;
      const e = this.#entries.get(m.id);
      if (e) e.weight = m.weight;
      else {
        this.#entries.set(m.id, { weight: m.weight, lastPingAt: now });
        added.push(m.id);
      }
    }
    return added;
  }

  /** Records a fresh PING from `id`. */
  pinged(id: string, now: number): void {
    const e = this.#entries.get(id);
    if (e) e.lastPingAt = now;
  }

  /**
   * Restarts every member's PING clock at `now`: after the leader was not looking (a pause), the
   * silence of its members is no evidence that they are gone.
   */
  refresh(now: number): void {
    for (const e of this.#entries.values()) e.lastPingAt = now;
  }

  /** Removes `id`; true when it was a member. */
  remove(id: string): boolean {
    return this.#entries.delete(id);
  }

  /** Removes every member whose PINGs stopped for more than `timeoutMs`; returns their ids. */
  dropSilent(now: number, timeoutMs: number): string[] {
    const dropped: string[] = [];
    for (const [id, e] of this.#entries) {
      if (now - e.lastPingAt > timeoutMs) {
        this.#entries.delete(id);
        dropped.push(id);
      }
    }
    return dropped;
  }

  /** True when `id` is a member other than the leader. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** The followers' ids (the leader excluded). */
  followerIds(): string[] {
    return [...this.#entries.keys()];
  }

  /** Every member, the leader first, then the others sorted by id. */
  list(): Member[] {
    const others = [...this.#entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, e]) => ({ id, weight: e.weight }));
    return [this.#self, ...others];
  }
}

import { type Member } from '@roster/follower';

interface Entry {
  weight: number;
  priority: number;
  lastPingAt: number;
  /** When a PING from it was last taken in (admission and `refresh` do not count). */
  heardAt: number | undefined;
  /** Since when it has PINGed without a gap longer than the healthy bound (see {@link Membership.pinged}). */
  heardSince: number | undefined;
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
    for (const m of inherited) if (m.id !== self.id) this.#entries.set(m.id, entry(m, now));
  }

  /**
   * Adds joiners (or updates their weight and priority: a member restarted with another priority
   * joins again, and must then settle again before it is preferred); returns the ids that are new.
   */
  admit(joiners: readonly Member[], now: number): string[] {
    const added: string[] = [];
    for (const m of joiners) {
      if (m.id === this.#self.id) continue;
      const e = this.#entries.get(m.id);
      if (e) {
        e.weight = m.weight;
        if (e.priority !== (m.priority ?? 0)) {
          e.priority = m.priority ?? 0;
          e.heardSince = undefined;
        }
      } else {
        this.#entries.set(m.id, entry(m, now));
        added.push(m.id);
      }
    }
    return added;
  }

  /**
   * Records a fresh PING from `id`. A member heard again after more than `healthyMs` of silence
   * (or for the first time) starts a new healthy stretch.
   */
  pinged(id: string, now: number, healthyMs = Number.POSITIVE_INFINITY): void {
    const e = this.#entries.get(id);
    if (!e) return;
    e.lastPingAt = now;
    if (e.heardSince === undefined || e.heardAt === undefined || now - e.heardAt > healthyMs) e.heardSince = now;
    e.heardAt = now;
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

  /**
   * The member a leader should hand over to at `now`, if any: of those with a priority above the
   * leader's, PINGing it without a gap for at least `settleMs` and last heard within `healthyMs`,
   * the highest priority (then the lowest id).
   */
  preferred(now: number, settleMs: number, healthyMs: number): Member | undefined {
    const own = this.#self.priority ?? 0;
    let best: [string, Entry] | undefined;
    for (const [id, e] of this.#entries) {
      if (e.priority <= own || e.heardSince === undefined || e.heardAt === undefined) continue;
      if (now - e.heardSince < settleMs || now - e.heardAt > healthyMs) continue;
      if (best === undefined || e.priority > best[1].priority || (e.priority === best[1].priority && id < best[0])) best = [id, e];
    }
    return best && member(best[0], best[1]);
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
    const others = [...this.#entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, e]) => member(id, e));
    return [this.#self, ...others];
  }
}

function entry(m: Member, now: number): Entry {
  return { weight: m.weight, priority: m.priority ?? 0, lastPingAt: now, heardAt: undefined, heardSince: undefined };
}

/** A member record, with no `priority` field when it is 0 (as members read from a list without priorities). */
function member(id: string, e: Entry): Member {
  return e.priority === 0 ? { id, weight: e.weight } : { id, weight: e.weight, priority: e.priority };
}

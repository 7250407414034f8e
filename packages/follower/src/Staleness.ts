import { isClaim, isGoodbye, sameLeadership, type Broadcast } from './broadcast.js';

/**
 * Watches one broadcast for progress (as the protocol puts it, "any follower that sees no changes in the
 * Version after a sufficient period of time"). Progress means the value changed: another
 * leadership, or the same leadership at another version. It is timed on the local monotonic
 * clock from the completion of the read that first saw the change, so a leader whose last
 * publication started at `s` is always seen as stale later than `s + T`.
 */
export class Staleness {
  #tracked: Broadcast | undefined;
  #changedAt: number;
  #lastReadStartedAt: number | undefined;
  /** Like `#changedAt`, but also moved on by a gap in the reads that reached the store. */
  #seenStillFrom: number;
  #lastReachableStartedAt: number;
  /** A change is timed no earlier than this: the completion of the last read the reader was not looking through. */
  #notBefore = Number.NEGATIVE_INFINITY;
  /**
   * `#seenStillFrom` as it was before a gap in the reads that reached the store (an outage), while
   * no read of every nonce has yet shown the tracked broadcast unchanged after it: such a read
   * restores it (see {@link sawRead}).
   */
  #stillBeforeGap: number | undefined;
  readonly #claimGraceMs: number;

  /**
   * Starts with "nothing seen" as the tracked value, changed at `now`. A tracked **claim**
   * (Version 0) counts as still only after `claimGraceMs` more than the timeout: its candidate
   * keeps it still for up to T by design, then confirms and publishes, so a claim still for T alone
   * says nothing of whether its candidate is about to lead.
   */
  constructor(now: number, claimGraceMs = 0) {
    this.#claimGraceMs = claimGraceMs;
    this.#changedAt = now;
    this.#seenStillFrom = now;
    this.#lastReachableStartedAt = now;
  }

  /** The broadcast being tracked (`undefined` for "none"). */
  get tracked(): Broadcast | undefined {
    return this.#tracked;
  }

  /**
   * True while stillness seen before a gap in the reads that reached the store (an outage) awaits
   * {@link sawUnchanged}: no change seen since, no pause of the reader.
   */
  get acrossGap(): boolean {
    return this.#stillBeforeGap !== undefined;
  }

  /**
   * Records what a read saw, timed at `at` (the start of that read), or at the completion of a read
   * the reader was not looking through ({@link sawRead}) when that is later; returns true when it
   * is a change.
   */
  observe(seen: Broadcast | undefined, at: number): boolean {
    const prev = this.#tracked;
    const same = prev === undefined ? seen === undefined : sameLeadership(prev, seen) && prev.version === seen!.version;
    if (same) return false;
    this.#tracked = seen;
    this.#changedAt = Math.max(at, this.#notBefore);
    this.#seenStillFrom = this.#changedAt;
    this.#stillBeforeGap = undefined;
    return true;
  }

  /** A copy that tracks on its own from here. */
  clone(): Staleness {
    const copy = new Staleness(this.#changedAt, this.#claimGraceMs);
    copy.#tracked = this.#tracked;
    copy.#lastReadStartedAt = this.#lastReadStartedAt;
    copy.#seenStillFrom = this.#seenStillFrom;
    copy.#lastReachableStartedAt = this.#lastReachableStartedAt;
    copy.#notBefore = this.#notBefore;
    copy.#stillBeforeGap = this.#stillBeforeGap;
    return copy;
  }

  /**
   * Records that a read started at `startedAt` and completed at `at`. Stillness is only evidence
   * while the reader was looking: after a gap longer than `maxGapMs` between two reads (the
   * process was paused, or its loop stalled) whatever changed in between went unseen, so the
   * tracked value counts as still only from this read on.
   *
   * A read that reached no nonce at all (`reachable` false) counts as looking for {@link isStale}
   * (a follower that can read nothing for T stands, blind), but not as evidence of stillness
   * ({@link isSeenStill}): after a gap longer than `maxGapMs` between reads that reached the
   * store, the tracked value counts as seen still only from this read on.
   *
   * A read that itself took longer than `slowMs` (its reply waited behind a busy event loop, or
   * the process was paused during it) is such a gap too, and what it saw changed counts as seen at
   * its completion, not at its start: otherwise a reader whose reads take longer than T would stand
   * on the very read that saw the leader's progress. (`slowMs` above the read gap keeps a loaded
   * reader, whose reads often take a few hundred ms, from putting off its stand after a crash.)
   *
   * Such a gap in the reads that reached the store, while the reader kept reading, can be bridged
   * later by {@link sawUnchanged}; not looking at all (a pause, a slow read) cannot.
   *
   * Returns true when the reader was not looking (such a gap, or such a slow read): what else it
   * watches by its reads (its PONGs) was not seen either.
   */
  sawRead(startedAt: number, at: number, maxGapMs: number, reachable = true, slowMs = maxGapMs): boolean {
    const slow = at - startedAt > slowMs;
    const blind = slow || (this.#lastReadStartedAt !== undefined && startedAt - this.#lastReadStartedAt > maxGapMs);
    if (blind) {
      this.#changedAt = Math.max(this.#changedAt, at);
      this.#seenStillFrom = Math.max(this.#seenStillFrom, at);
      this.#notBefore = Math.max(this.#notBefore, at);
      // Not looking at all (a pause) is not bridged: only a gap the reader kept reading through is.
      this.#stillBeforeGap = undefined;
    }
    this.#lastReadStartedAt = startedAt;
    if (reachable) {
      if (startedAt - this.#lastReachableStartedAt > maxGapMs && at > this.#seenStillFrom) {
        this.#stillBeforeGap ??= this.#seenStillFrom;
        this.#seenStillFrom = at;
      }
      this.#lastReachableStartedAt = startedAt;
    }
    return blind;
  }

  /**
   * The store showed the tracked broadcast unchanged since before the last gap in the reads that
   * reached it (see {@link sawRead}; no change observed since): stillness counts from before that
   * gap again. A leader publishes by compare-and-set and never takes a Version back, so whatever it
   * published during the gap would still be in the window (or something newer written over it):
   * finding there, on every nonce, exactly what was seen before is seeing that it published
   * nothing, by a read that reached the store, the evidence stillness asks for. (A store that lost
   * acknowledged writes is outside the guarantee.) A candidate asks it of the read that confirms
   * its claim (`decide` in `@roster/election`), so that a leader that published after an earlier
   * read, at a nonce unreadable since, is not missed.
   */
  sawUnchanged(): void {
    if (this.#stillBeforeGap === undefined) return;
    this.#seenStillFrom = this.#stillBeforeGap;
    this.#stillBeforeGap = undefined;
  }

  /**
   * True when the tracked broadcast has not changed for `timeoutMs` at `now`, or is a goodbye
   * (whose leader has already stopped leading), unless `goodbyeStale` is false: then a goodbye too
   * must stay unchanged for `timeoutMs` (a member that defers to one of higher priority).
   */
  isStale(now: number, timeoutMs: number, goodbyeStale = true): boolean {
    if (goodbyeStale && this.#tracked !== undefined && isGoodbye(this.#tracked)) return true;
    // As `staleAt` computes it (not `now - changedAt`): at fractional times the two could disagree by
    // a rounding error, and a wake-up timed to `staleAt` would find the node not stale yet, for ever.
    return now >= this.#changedAt + this.#still(timeoutMs);
  }

  /**
   * True when reads that reached the store have seen the tracked broadcast unchanged for
   * `timeoutMs` at `now` (or it is a goodbye): what a candidate needs before it leads, since a
   * leader it could not see may have published meanwhile.
   */
  isSeenStill(now: number, timeoutMs: number): boolean {
    if (this.#tracked !== undefined && isGoodbye(this.#tracked)) return true;
    return now >= this.#seenStillFrom + this.#still(timeoutMs);
  }

  /** When {@link isSeenStill} becomes true if nothing changes. */
  seenStillAt(timeoutMs: number): number {
    return this.#tracked !== undefined && isGoodbye(this.#tracked) ? this.#seenStillFrom : this.#seenStillFrom + this.#still(timeoutMs);
  }

  /** When the tracked broadcast becomes stale if nothing changes (see {@link isStale} for `goodbyeStale`). */
  staleAt(timeoutMs: number, goodbyeStale = true): number {
    return goodbyeStale && this.#tracked !== undefined && isGoodbye(this.#tracked) ? this.#changedAt : this.#changedAt + this.#still(timeoutMs);
  }

  /** How long the tracked value must stay unchanged to count as still. */
  #still(timeoutMs: number): number {
    return this.#tracked !== undefined && isClaim(this.#tracked) ? timeoutMs + this.#claimGraceMs : timeoutMs;
  }
}

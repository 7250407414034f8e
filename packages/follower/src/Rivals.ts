import { sameLeadership, type Broadcast, type BroadcastHeader } from './broadcast.js';
import { readEveryNonce, type LeaderWindowRead } from './LeaderRead.js';
import { Staleness } from './Staleness.js';

/** Most leaderships watched at once; past it, the one seen still the longest is forgotten. */
const MAX_WATCHED = 32;

interface Watched {
  readonly staleness: Staleness;
  /** The nonce where its highest Version was last found. */
  nonce: number;
}

/**
 * Every leadership found in the leader window, each watched for progress on its own, the way
 * {@link Staleness} watches the best one: a candidate confirms its claim only once each of them
 * has been seen still for T (`decide` in `@roster/election`), not only the best.
 *
 * A leadership worse than the best can be alive. A claim written at nonce k just before k became
 * unavailable to everyone ranks above the leader elected meanwhile at k + 1 (k was known
 * unavailable, so nothing could land there); that leader learns of the claim only at its first
 * read after k is back. A candidate that watched only the claim, dead and still, would confirm
 * over the live leader.
 *
 * A leadership is watched from the first read that finds it (at a nonce, or by the header of a
 * value that read could not fetch), timed like the best one: only a higher Version is progress,
 * and stillness counts only as seen by reads that reached the store ({@link Staleness.sawRead}). It
 * is forgotten once it has been seen still for T and a read found it nowhere after reading both the
 * nonce where it was last found and the next one (where its leader would have moved), or when more
 * than 32 are watched.
 */
export class Rivals {
  readonly #watched = new Map<string, Watched>();
  readonly #timeoutMs: number;
  readonly #claimGraceMs: number;

  /**
   * `timeoutMs`: T; `claimGraceMs`: how much longer than T a claim must stay unchanged to count as
   * still (see {@link Staleness}).
   */
  constructor(timeoutMs: number, claimGraceMs = 0) {
    this.#timeoutMs = timeoutMs;
    this.#claimGraceMs = claimGraceMs;
  }

  /** How many leaderships are watched. */
  get size(): number {
    return this.#watched.size;
  }

  /**
   * Takes in a read (see {@link Staleness.sawRead} for `maxGapMs` and `slowMs`: a node judges
   * every leadership's stillness as it judges the best one's, as a follower or as a candidate).
   */
  saw(read: LeaderWindowRead, maxGapMs: number, slowMs = maxGapMs): void {
    for (const w of this.#watched.values()) w.staleness.sawRead(read.startedAt, read.at, maxGapMs, read.reachable, slowMs);
    const found = foundIn(read);
    for (const [key, f] of found) {
      let w = this.#watched.get(key);
      if (w === undefined) {
        const staleness = new Staleness(read.startedAt, this.#claimGraceMs);
        staleness.sawRead(read.startedAt, read.at, maxGapMs, read.reachable, slowMs);
        w = { staleness, nonce: f.nonce };
        this.#watched.set(key, w);
      }
      const tracked = w.staleness.tracked;
      if (tracked === undefined || f.broadcast.version > tracked.version) {
        w.staleness.observe(f.broadcast, read.startedAt);
        w.nonce = f.nonce;
      }
    }
    const wasRead = (nonce: number): boolean => read.slots[nonce % read.slots.length]?.state !== 'unavailable';
    for (const [key, w] of this.#watched) {
      if (found.has(key) || !wasRead(w.nonce) || !wasRead(w.nonce + 1)) continue;
      // Gone from the window is not gone: a claim (ours, too) may have replaced a live leader's
      // copy, and that leader leads until its next read. Forgotten only once still for T anyway.
      if (w.staleness.isSeenStill(read.at, this.#timeoutMs)) this.#watched.delete(key);
    }
    while (this.#watched.size > MAX_WATCHED) this.#watched.delete(this.#stillest());
  }

  /**
   * Takes in the read that confirms a claim: when it read every nonce, each leadership it found at
   * the Version watched, where that Version was found, published nothing the store kept since it
   * was first seen, across a gap in the reads too (see {@link Staleness.sawUnchanged}).
   */
  sawUnchanged(read: LeaderWindowRead): void {
    if (read.moving !== undefined || !readEveryNonce(read)) return;
    const found = foundIn(read);
    for (const [key, w] of this.#watched) {
      const f = found.get(key);
      // Found where it was last found: a copy left at another nonce says nothing of what its
      // leader wrote where it publishes (someone's claim may have replaced that since).
      if (f !== undefined && f.nonce === w.nonce && f.broadcast.version === w.staleness.tracked?.version) w.staleness.sawUnchanged();
    }
  }

  /**
   * When every leadership watched, other than those of `except` (a candidate's claim and the
   * leadership it tracks itself), will have been seen still for `timeoutMs` if none moves
   * (`-Infinity` when there is none).
   */
  seenStillAt(timeoutMs: number, except: readonly (Broadcast | undefined)[]): number {
    let at = Number.NEGATIVE_INFINITY;
    for (const w of this.#watched.values()) {
      const b = w.staleness.tracked!;
      if (except.some((e) => sameLeadership(e, b))) continue;
      at = Math.max(at, w.staleness.seenStillAt(timeoutMs));
    }
    return at;
  }

  /** The key of the leadership seen still the longest. */
  #stillest(): string {
    let oldest: [string, number] | undefined;
    for (const [key, w] of this.#watched) {
      const at = w.staleness.seenStillAt(0);
      if (oldest === undefined || at < oldest[1]) oldest = [key, at];
    }
    return oldest![0];
  }
}

/** Each leadership `read` found, at its highest Version there, and that Version's nonce. */
function foundIn(read: LeaderWindowRead): Map<string, { broadcast: Broadcast; nonce: number }> {
  const found = new Map<string, { broadcast: Broadcast; nonce: number }>();
  const add = (broadcast: Broadcast, nonce: number | undefined): void => {
    const key = `${broadcast.era} ${broadcast.nonce} ${broadcast.id}`;
    const known = found.get(key);
    if (known === undefined || broadcast.version > known.broadcast.version) found.set(key, { broadcast, nonce: nonce ?? known?.nonce ?? broadcast.nonce });
  };
  for (const s of read.slots) {
    if (s.state === 'broadcast') add(s.broadcast, s.nonce);
    else if (s.state === 'behind') add(headerOnly(s.header), s.nonce);
  }
  // A value whose header only was read is someone publishing; where is not said: progress only.
  if (read.moving !== undefined) add(headerOnly(read.moving), undefined);
  return found;
}

/** A broadcast known by its header only: one member stands for the list not read (no members is a goodbye). */
function headerOnly(h: BroadcastHeader): Broadcast {
  return { ...h, members: [{ id: h.id, weight: 1 }] };
}

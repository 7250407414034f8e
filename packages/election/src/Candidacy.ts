import { bestBroadcast, compareLeadership, formatBroadcast, formatHeader, parseBroadcast, sameLeadership, type Broadcast } from '@roster/follower';
import { coversBelow, readEveryNonce, showsNothingNewer, showsUnchanged, supersedes, type LeaderWindowRead, type Rivals, type Staleness } from '@roster/follower/internal';
import type { Timing } from './timing.js';
import { expectedValue } from './expectedValue.js';
import { type Clock, type CompareAndSetOptions, type CompoundKey, type KV, type Timer } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';

interface Common {
  /** The best leadership known when the candidacy began. */
  readonly basis: Broadcast | undefined;
  /** Progress of the best broadcast other than our claim: we lead only once it is stale. */
  readonly others: Staleness;
  /**
   * Every leadership found in the window, each watched on its own (the node's, shared with its
   * reads): a worse one may be a live leader, elected while the best was hidden.
   */
  readonly rivals: Rivals;
  /**
   * Stood while no nonce of the leader key could be read, or on stillness seen across a gap in the
   * reads that reached the store (an outage): progress seen before claiming ends it.
   */
  readonly blind?: boolean;
  /** Local time at which the first read of a blind candidacy that reached the store started. */
  reachedAt?: number;
}

/**
 * What a node holds while it is a candidate: first `unclaimed` (it has decided to stand), then
 * `claimed` once its claim is written, waiting for everything else to stand still.
 */
export type Candidacy =
  | (Common & { readonly phase: 'unclaimed' })
  | (Common & {
      readonly phase: 'claimed';
      /** The claim written, and its exact text (what a compare-and-set expects there). */
      readonly claim: Broadcast;
      readonly raw: string;
      /** Local time the claim was written. */
      readonly claimedAt: number;
      /**
       * The broadcast the claim's compare-and-set replaced, when that was exactly the one tracked in
       * `others` (the store showed it still there, unchanged, as a read would have).
       */
      readonly replaced?: Broadcast | undefined;
      /** The timer that wakes the candidate to confirm. */
      settle: Timer | undefined;
    });

/** What a candidate does after a read of the leader window. */
export type CandidateDecision =
  | { readonly action: 'claim' }
  | { readonly action: 'lead' }
  | { readonly action: 'follow'; readonly reason: 'better-leader-seen' | 'claim-lost' | 'claim-unconfirmed' | 'leader-alive' }
  /** Read again at the next step, or at `at` (local time) when given. */
  | { readonly action: 'wait'; readonly at?: number };

/** The timing a candidate decides by (see `Timing`). */
export type CandidateTiming = Pick<Timing, 'timeoutMs' | 'claimTimeoutMs' | 'settleMs' | 'blindClaimWaitMs'>;

/**
 * The candidate's rule, applied to one read completed at `now`: unclaimed, it claims
 * unless a leadership better than its basis appeared; claimed, it follows a better broadcast,
 * gives up when its claim is gone or unconfirmed after T + I, and leads once the settle time has
 * passed, every other leadership has stood still for T (its leader, if alive, has fenced itself),
 * and the read rules out a broadcast hidden below its claim's nonce (`coversBelow`).
 * Records the progress of the best other broadcast in `c.others` (each leadership's is recorded in
 * `c.rivals` by the node's reads).
 */
export function decide(c: Candidacy, read: LeaderWindowRead, now: number, timing: CandidateTiming): CandidateDecision {
  const claim = c.phase === 'claimed' ? c.claim : undefined;
  const others = bestBroadcast(read.broadcasts.filter((b) => !sameLeadership(b, claim)));
  if (others && supersedes(others, c.others.tracked)) c.others.observe(others, read.startedAt);
  if (c.phase === 'unclaimed') {
    if (others && (c.basis === undefined || compareLeadership(others, c.basis) < 0)) return { action: 'follow', reason: 'better-leader-seen' };
    if (c.blind && read.reachable && !c.others.isStale(now, timing.timeoutMs)) return { action: 'follow', reason: 'leader-alive' };
    // A read that reached no nonce leaves nothing to claim at (a claim replaces what a read found).
    if (!read.reachable) return { action: 'wait' };
    // Stood blind (a store outage), it claims on a read of every nonce, for up to
    // `blindClaimWaitMs` after its first read that reached the store: a store just back answers
    // some reads too late, and a nonce not read may hold the leader, back too and publishing (a
    // claim of the next era would depose it, then wait T for it to go still), or another
    // candidate's claim (two claims of one era: the better one waits T + 2I for the other).
    if (c.blind && read.reachable) {
      c.reachedAt ??= read.startedAt;
      if (!readEveryNonce(read) && now - c.reachedAt < timing.blindClaimWaitMs) return { action: 'wait' };
    }
    return { action: 'claim' };
  }
  if (others && compareLeadership(others, c.claim) < 0) return { action: 'follow', reason: 'better-leader-seen' };
  if (!read.broadcasts.some((b) => sameLeadership(b, c.claim))) {
    // A claim we cannot see (its key is unavailable to us) is not a claim lost: wait.
    if (read.slots[c.claim.nonce]?.state === 'unavailable') return { action: 'wait' };
    return { action: 'follow', reason: 'claim-lost' };
  }
  if (now - c.claimedAt < timing.settleMs) return { action: 'wait' };
  // After a store outage, stillness seen before it counts again when this read (after the claim
  // and its settle time) finds, on every nonce, the broadcast tracked unchanged, or nothing newer
  // where the claim replaced exactly that broadcast by compare-and-set (the store showed it still
  // there): its leader published nothing since (Staleness.sawUnchanged).
  const tracked = c.others.tracked;
  const replacedTracked = c.replaced !== undefined && sameLeadership(c.replaced, tracked) && c.replaced.version === tracked!.version;
  if (showsUnchanged(read, tracked, c.claim) || (replacedTracked && showsNothingNewer(read, tracked, c.claim))) c.others.sawUnchanged();
  c.rivals.sawUnchanged(read);
  // A nonce below the claim that this read could not read is not absent: a claim of our era may
  // be there (its candidate could not read ours either), ranking first. Confirm only on a read that
  // rules that out; a nonce known unavailable (its shard down or frozen) holds nothing new.
  const covered = coversBelow(read, c.claim.nonce);
  // Stillness counts only as seen by reads that reached the store: a leader that this candidate
  // could not read at all (a store outage of its own) may have published all along.
  // Every other leadership found in the window must have stood still for T too, not only the best:
  // a worse one may be a live leader, elected at the next nonce while a better claim was hidden at
  // an unavailable one; it learns of our claim only at its next read (Rivals).
  const rivalsStillAt = c.rivals.seenStillAt(timing.timeoutMs, [c.claim, tracked]);
  const rivalsStill = now >= rivalsStillAt;
  if (covered && c.others.isSeenStill(now, timing.timeoutMs) && rivalsStill) return { action: 'lead' };
  if (now - c.claimedAt > timing.claimTimeoutMs) return { action: 'follow', reason: 'claim-unconfirmed' };
  const staleAt = Math.max(c.others.seenStillAt(timing.timeoutMs), rivalsStillAt);
  return { action: 'wait', at: covered ? staleAt : Math.max(staleAt, now + timing.settleMs) };
}

/** Where to write a claim, and with what. */
export interface ClaimOptions {
  readonly kv: KV;
  readonly clock: Clock;
  readonly opTimeoutMs: number;
  /** The leader key. */
  readonly key: CompoundKey;
  /** The read the claim is based on: each slot is replaced by compare-and-set against what it held. */
  readonly read: LeaderWindowRead;
  readonly claim: Omit<Broadcast, 'nonce'>;
  /** False once the candidacy is over (checked after every store operation). */
  readonly current: () => boolean;
}

/** How writing a claim ended. */
export type ClaimOutcome =
  /** `replaced`: the broadcast the compare-and-set replaced, as read (none when it replaced anything else). */
  | { readonly outcome: 'claimed'; readonly claim: Broadcast; readonly raw: string; readonly replaced: Broadcast | undefined }
  /** Another write landed first at the slot. */
  | { readonly outcome: 'race-lost' }
  /** The candidacy ended meanwhile, or no slot could be written. */
  | { readonly outcome: 'abandoned' }
  | { readonly outcome: 'failed'; readonly error: unknown };

/**
 * Writes a claim at the lowest leader-key nonce that can be written, by compare-and-set against
 * what the read saw there, so that a claim or publication written since is never overwritten. A
 * timeout, read or write, on a store slow as a whole ends the attempt there (`CompoundKey.holdsOn`):
 * every nonce is as slow, and a claim further on would only be one more copy to find.
 *
 * A value that is no broadcast (garbage, an empty string, or what a header read could only see
 * the start of) is no rival: when the compare finds one there, the claim compares once more
 * against that exact value, which the failed compare-and-set returned. Only another broadcast
 * written since the read loses the race; garbage delays a claim by one round trip, never more.
 */
export async function writeClaim(o: ClaimOptions): Promise<ClaimOutcome> {
  const byPrefix = o.kv.capabilities.comparePrefix === true;
  for (const slot of o.read.slots) {
    // A nonce whose read timed out on a store slow as a whole is no reason to claim further on.
    if (slot.state === 'unavailable' && o.key.holdsOn(slot.error)) return { outcome: 'failed', error: slot.error };
    // A value known by its header only (`LeaderWindow.check`: a worse leadership) is replaced by
    // that header where the store compares prefixes, and skipped where it does not.
    if (slot.state === 'unavailable' || (slot.state === 'behind' && !byPrefix)) continue;
    const claim: Broadcast = { ...o.claim, nonce: slot.nonce };
    const raw = formatBroadcast(claim);
    const key = o.key.at(slot.nonce);
    // Over a leader of N members, the value replaced is named by its header (see expectedValue);
    // garbage by its exact text: a header in front of garbage names nothing.
    let { expected, options }: { expected: string | null; options: CompareAndSetOptions } =
      slot.state === 'behind'
        ? { expected: formatHeader(slot.header), options: { prefix: true } }
        : slot.state === 'broadcast'
          ? expectedValue(o.kv, slot.raw)
          : { expected: slot.state === 'empty' ? null : slot.raw, options: {} };
    try {
      for (let attempt = 0; ; attempt++) {
        const { swapped, current } = await withDeadline(o.clock, o.opTimeoutMs, 'claim', o.kv.compareAndSet(key, expected, raw, options));
        if (!o.current()) return { outcome: 'abandoned' };
        if (swapped) {
          o.key.moveTo(slot.nonce);
          return { outcome: 'claimed', claim, raw, replaced: attempt === 0 && slot.state === 'broadcast' ? slot.broadcast : undefined };
        }
        if (attempt > 0 || (current !== null && parseBroadcast(current).ok)) return { outcome: 'race-lost' };
        ({ expected, options } = { expected: current, options: {} });
      }
    } catch (error) {
      if (!o.current()) return { outcome: 'abandoned' };
      if (o.key.failedOn(error)) continue;
      return { outcome: 'failed', error };
    }
  }
  return { outcome: 'abandoned' };
}

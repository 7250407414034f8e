import type { FollowerTiming } from '@roster/follower/internal';
import { ConfigError } from '@roster/kv-adapter';
import { PONG_ROUND_LAG } from './PongRound.js';

/**
 * Every duration of the protocol, by name, derived from the four a node is configured with: the
 * interval I, the timeout T, the renew deadline R and the operation timeout τ (docs/protocol.md,
 * "Timing"). This file is the only one that multiplies or divides them; the others read a name
 * (`@roster/follower` among them: the names its reads and rules go by are its `FollowerTiming`).
 *
 * | name | value | what it is |
 * |---|---|---|
 * | `intervalMs` | I | the period of every loop: poll, PING, publish, PONG, join poll |
 * | `timeoutMs` | T | a Version still for T means the leader is gone; a member quiet for T is dropped |
 * | `renewDeadlineMs` | R (T/2) | a leader that could not renew its lease for R stops acting as leader |
 * | `operationTimeoutMs` | τ (I/2) | the longest one store command may take before it counts as failed |
 * | `settleMs` | I/10 | a candidate waits this long after its claim before it re-reads |
 * | `restMs` | I | a node stands at most once per `restMs` |
 * | `stillMs` | 1.5I | a Version unchanged this long is still: followers then read every nonce |
 * | `scanEveryMs` | 5T | followers read every nonce at least this often, whatever they see |
 * | `stillPollMs` | I/2 | a follower whose Version has been still for `stillMs` polls this often (on a healthy store), to see a new leader sooner |
 * | `stillScanMs` | max(0.9I, min(1.9I, T/2)) | …and scans every nonce at most this often (every fourth poll at T ≥ 3.8I; the polls in between read only the nonce followed) |
 * | `readGapMs` | 2I | reads whose starts are further apart leave a gap in what a node saw |
 * | `slowReadMs` | max(2I, T/2) | a read slower than this was not looking (a paused process) |
 * | `claimGraceMs` | 2I | a claim (Version 0) counts as still only after T + `claimGraceMs` |
 * | `claimTimeoutMs` | T + I | a claim not confirmed by then is abandoned |
 * | `pongTimeoutMs` | T + 2I | a listed follower PONGed by nobody for this long stands |
 * | `joinRetryMs` | max(T, 3I) | an unlisted follower appends itself to the join key again after this |
 * | `staleCheckHorizonMs` | 3I | a stand due sooner than this gets a timer of its own |
 * | `followerQuietMs` | 1.5I | a PONG worker with no news for this long looks at the other nonces |
 * | `beatOffsetMs` | I/2 | the leader's beat (the PONG round, the join poll) runs half an interval after its publication |
 * | `listStepTtlMs` | 4T | how long a list step stays in the store |
 * | `listStepBudgetMs` | τ/2 | the time a reader gives list steps before it reads the whole list |
 * | `revalidateChainMs` | min(R, T − R − τ) | a lapsed leader's two publications must start this close to renew |
 * | `revalidateCycleMs` | min(0.9R − I, 0.45R) | and each cycle of the two (its read and publication) must take at most this: cycles come every max(I, C), C their length, and each lands C after its start, so max(I, C) + C ≤ 0.9R lets the next one renew, a tenth of R to spare |
 * | `tierSpacingMs(r)` | I + 3 min(r, τ) | the time between two tiers of candidates, r the mean window read |
 * | `leaderWorkTimeoutMs` | T (configured, ≤ T) | how long `stop()` and `resign()` wait for the leader's work to settle before the goodbye |
 * | `standAsideMs` | T | a leader that resigned does not stand for this long, so that another node takes over |
 * | `preemptSettleMs` | T | a member of higher priority PINGs the leader this long before the leader hands over to it |
 * | `preemptHealthyMs` | 2I | a member whose last PING is older than this is not healthy enough to take over |
 * | `blindClaimWaitMs` | T/2 | a candidate that stood blind claims on a read of every nonce, or this long after its first read that reached the store |
 * | `paceRoundTripMs` | τ/2 | a node whose mean store round trip is above this backs off (`Pace`: factor f from 1 here to 4 at τ) |
 * | `pingPeriodMs(f)` | min(f·I, max(I, min(2I − τ, T − 2I − τ))) | the period of a follower's PINGs |
 * | `joinRetryPacedMs(f)` | f · max(T, 3I) | `joinRetryMs`, backed off |
 * | `joinFailedWaitMs(f)` | (f − 1) · I | after a failed append, the wait before the next |
 * | `restPacedMs(f)` | min(f·I, T) | `restMs`, backed off |
 * | `standPacedMs(f)` | min((f − 1) · I, T) | how much later than T a follower that could read nothing stands (`unreachable`) |
 * | `stepPacedMs(f)` | min(f·I, 1.5I) | the period of a follower's steps (its polls) |
 * | `stillScanPacedMs(f)` | min(f · S, max(S, T/2)), S = `stillScanMs` | `stillScanMs`, backed off: how often a follower whose Version is still scans every nonce |
 * | `candidateStepMs(f)` | min(f·I, T) | the period of a candidate's steps before it claims |
 * | `pongPeriodMs(f)` | min(f·I, 2I, max(I, ⌊(T − I − τ − P) / (1 + 7/32)⌋)), P = max(I, min(2I − τ, T − 2I − τ)) | the period of the leader's PONG round (P: the longest PING period; 7/32: how late in its beat a worker's step may start, `PONG_ROUND_LAG`) |
 *
 * The paced durations (f, the factor of the node's `Pace`) are the unpaced ones when f = 1, which
 * is every store whose mean round trip stays within τ/2: on a healthy store every promise of
 * docs/protocol.md holds unchanged. On a slow one (f up to 4, when every operation times out)
 * they stay within what the safety rules allow:
 *
 * - **PINGs** at most every max(I, min(2I − τ, T − 2I − τ)): each PING completes within τ of its
 *   start, so two completed PINGs are at most 2I apart, and the follower's PONG clock keeps
 *   running (it restarts after a gap over `readGapMs`, 2I: `Following.pinged`); the leader's PONG
 *   worker reads the id key every interval, so it sees a new PING at least every period + I + τ ≤
 *   T − I: one interval before it would drop a healthy member quiet for T. A PONG is found at the
 *   first PING after it, within period + I + τ < `pongTimeoutMs` (T + 2I), so a listed follower
 *   does not stand on PONG silence for its own slower PINGs. Where T leaves no room (T ≤ 3I + τ)
 *   PINGs keep their period I.
 * - **Joins** are at least once and carry no safety: a join retried later is listed later
 *   (docs/protocol.md's 3I is for a healthy store).
 * - **Candidacies**: standing later, or less often, is always safe (a claim is confirmed only on
 *   stillness seen for T, whenever it was made). The rest is at most T, so a node whose candidacy
 *   ended stands again within T; the stand on reading nothing waits at most T more. A candidate
 *   that has not claimed reads the whole window and the era record at each step (2 × the nonce
 *   window: 8 commands where a follower's poll is 1), and one that stood because it could read
 *   nothing cannot claim until a read succeeds: its steps back off up to f·I, at most T (a gap in
 *   its reads makes it count what it read as "not looking", so it follows a leader seen rather
 *   than claim against it: the safe side). Once it has claimed its steps keep the interval and
 *   its settle timers. Failover on a slow store takes longer by these waits at most:
 *   T + 2I plus half an interval of polling, the rest and the stand wait, which is why they are
 *   bounded by T.
 * - **Polls**: a follower reads the leader window at least every 1.5I (`stillMs`), so that two of
 *   its reads never start more than `readGapMs` (2I) apart, with half an interval to spare for a
 *   late timer: a longer gap would make it "not looking", and stillness would never count.
 * - **Scans of a still Version**: a follower whose Version is still reads every nonce (the nonce
 *   window, 4 commands) at most every f · S, and at least every max(S, T/2), S = `stillScanMs`
 *   (1.9I at the default T = 5I). The scan finds a leadership at another nonce (a claim made
 *   where the candidate could write, a leader whose nonce moved); a claim and a new leader's
 *   first publication usually land at the nonce followed, which the polls in between read. Every
 *   member's Version goes still at once when the leader dies, so the scans are the whole group's
 *   load during a failover: every 0.9I they made it 4.5 commands per member per interval (3.75
 *   at 1.9I), and at 1,000 members on PostgreSQL the reads that queued behind them made the last
 *   member follow 1 to 1.5 s after the new leader instead of I/2 (docs/scale.md). On a slow
 *   store a Version looks still to every follower whose reads time out, and scanning at the
 *   healthy rate multiplied their reads just when the store could answer fewer (at 1,000
 *   members on one etcd, the group never converged). A follower scans again before it stands
 *   (its candidacy reads every nonce), so scanning later delays seeing a leadership elsewhere by
 *   at most the difference, never makes anyone stand sooner.
 * - **The leader's PONG round** (one `exchange` per follower, and the reads of the other nonces
 *   for a follower gone quiet) at most every 2I, and never later than lets a PING be found one
 *   interval before the leader would drop its member: a PING lands at most P + τ after the
 *   previous one was found (P the longest PING period, whatever the follower's own pace), and is
 *   found at the next round, whose step for that member starts up to 7/32 of a period after the
 *   beat (the round is started in bursts over a quarter of its period: `PongRound`), so the leader
 *   has news of a healthy member at least every P + τ + (1 + 7/32) · `pongPeriodMs(f)` ≤ T − I.
 *   A follower sees a PONG at its next PING, at least every (1 + 7/32) · `pongPeriodMs(f)` + P + τ
 *   ≤ T − I < T + 2I (`pongTimeoutMs`), so it does not stand on PONG silence either. Where T
 *   leaves no room the round keeps its period I. The PONG round was the one store command per
 *   member per interval that did not back off: on a store that can serve fewer operations than
 *   the group asks, it was half of what the leader asked, and the reads of followers' other
 *   nonces (when PONGs timed out, every follower looked quiet) three times as much again; a PONG
 *   that times out on a store slow as a whole no longer sends its worker there (`PongWorker`).
 */
export interface Timing extends FollowerTiming {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly renewDeadlineMs: number;
  readonly operationTimeoutMs: number;
  readonly settleMs: number;
  readonly restMs: number;
  readonly stillMs: number;
  readonly scanEveryMs: number;
  readonly readGapMs: number;
  readonly slowReadMs: number;
  readonly claimGraceMs: number;
  readonly claimTimeoutMs: number;
  readonly pongTimeoutMs: number;
  readonly joinRetryMs: number;
  readonly staleCheckHorizonMs: number;
  readonly followerQuietMs: number;
  readonly beatOffsetMs: number;
  readonly listStepTtlMs: number;
  readonly listStepBudgetMs: number;
  readonly revalidateChainMs: number;
  readonly revalidateCycleMs: number;
  readonly leaderWorkTimeoutMs: number;
  readonly standAsideMs: number;
  readonly preemptSettleMs: number;
  readonly preemptHealthyMs: number;
  readonly blindClaimWaitMs: number;
  /** The time between two tiers of candidates, given this node's mean window read time. */
  readonly tierSpacingMs: (meanReadMs: number | undefined) => number;
  /** The longest mean store round trip a node runs its normal pace at (τ/2); above it, it backs off. */
  readonly paceRoundTripMs: number;
  /** The period of a follower's PINGs at pace factor `f` (see the table). */
  readonly pingPeriodMs: (f: number) => number;
  /** `joinRetryMs` at pace factor `f`. */
  readonly joinRetryPacedMs: (f: number) => number;
  /** The wait after a failed join append at pace factor `f`: none at 1. */
  readonly joinFailedWaitMs: (f: number) => number;
  /** `restMs` at pace factor `f`, at most T. */
  readonly restPacedMs: (f: number) => number;
  /** How much later than T a follower that read nothing stands, at pace factor `f`: none at 1, at most T. */
  readonly standPacedMs: (f: number) => number;
  /** The period of a follower's steps (its polls) at pace factor `f`: I to 1.5I. */
  readonly stepPacedMs: (f: number) => number;
  /** `stillScanMs` at pace factor `f`: `stillScanMs` to max(`stillScanMs`, T/2). */
  readonly stillScanPacedMs: (f: number) => number;
  /** The period of a candidate's steps before it claims, at pace factor `f`: I to 4I, at most T. */
  readonly candidateStepMs: (f: number) => number;
  /** The period of the leader's PONG round at pace factor `f`: I to 2I (see the table). */
  readonly pongPeriodMs: (f: number) => number;
}

/** The configured durations, validated: what {@link resolveDurations} returns. */
export interface Durations {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly renewDeadlineMs: number;
  readonly settleMs: number;
  readonly operationTimeoutMs: number;
  /** How long `stop()` and `resign()` wait for the leader's work to settle before the goodbye. */
  readonly leaderWorkTimeoutMs: number;
}

/** Derives every named duration from the configured ones (see the table on {@link Timing}). */
export function deriveTiming(d: Durations): Timing {
  const { intervalMs: I, timeoutMs: T, renewDeadlineMs: R, operationTimeoutMs: tau } = d;
  // The longest period a follower PINGs at, whatever its pace.
  const longestPingMs = Math.max(I, Math.min(2 * I - tau, T - 2 * I - tau));
  // How often a follower whose Version is still scans every nonce (see the table).
  const stillScanMs = Math.max(0.9 * I, Math.min(1.9 * I, T / 2));
  return {
    ...d,
    restMs: I,
    stillMs: 1.5 * I,
    scanEveryMs: 5 * T,
    stillPollMs: I / 2,
    stillScanMs,
    readGapMs: 2 * I,
    slowReadMs: Math.max(2 * I, T / 2),
    claimGraceMs: 2 * I,
    claimTimeoutMs: T + I,
    pongTimeoutMs: T + 2 * I,
    joinRetryMs: Math.max(T, 3 * I),
    staleCheckHorizonMs: 3 * I,
    followerQuietMs: 1.5 * I,
    beatOffsetMs: I / 2,
    listStepTtlMs: 4 * T,
    listStepBudgetMs: tau / 2,
    revalidateChainMs: Math.min(R, T - R - tau),
    revalidateCycleMs: Math.min(0.9 * R - I, 0.45 * R),
    standAsideMs: T,
    preemptSettleMs: T,
    preemptHealthyMs: 2 * I,
    blindClaimWaitMs: T / 2,
    tierSpacingMs: (meanReadMs) => I + 3 * Math.min(meanReadMs ?? 0, tau),
    paceRoundTripMs: tau / 2,
    pingPeriodMs: (f) => Math.min(paced(f) * I, longestPingMs),
    joinRetryPacedMs: (f) => paced(f) * Math.max(T, 3 * I),
    joinFailedWaitMs: (f) => (paced(f) - 1) * I,
    restPacedMs: (f) => Math.min(paced(f) * I, T),
    standPacedMs: (f) => Math.min((paced(f) - 1) * I, T),
    stepPacedMs: (f) => Math.min(paced(f) * I, 1.5 * I),
    stillScanPacedMs: (f) => Math.min(paced(f) * stillScanMs, Math.max(stillScanMs, T / 2)),
    candidateStepMs: (f) => Math.min(paced(f) * I, T),
    pongPeriodMs: (f) => Math.min(paced(f) * I, 2 * I, Math.max(I, Math.floor((T - I - tau - longestPingMs) / (1 + PONG_ROUND_LAG)))),
  };
}

/**
 * Validates the durations of `createNode()`'s options and applies their defaults: I = 1 s,
 * T = 5I, R = T/2, settle I/10, τ = I/2, leader work T. Each rule broken is a `ConfigError`
 * naming the field: T > 2I (a follower must see two publications within T), I < R < T − I (a
 * leader renews at least once before R, and fences itself an interval before its followers
 * stand), settle ≤ I and τ ≤ I (neither may hold a loop up for more than its period), leader work
 * 0 to T (a leader that stops leading stops publishing: after T of silence the others elect
 * anyway, so waiting longer would buy nothing).
 */
export function resolveDurations(options: {
  readonly intervalMs?: number | undefined;
  readonly timeoutMs?: number | undefined;
  readonly renewDeadlineMs?: number | undefined;
  readonly settleMs?: number | undefined;
  readonly operationTimeoutMs?: number | undefined;
  readonly leaderWorkTimeoutMs?: number | undefined;
}): Durations {
  const intervalMs = positiveInt('intervalMs', options.intervalMs ?? 1000);
  const timeoutMs = positiveInt('timeoutMs', options.timeoutMs ?? 5 * intervalMs);
  if (timeoutMs <= 2 * intervalMs) {
    throw new ConfigError('timeoutMs', timeoutMs, `Expected \`timeoutMs\` to be greater than twice \`intervalMs\` (${intervalMs})`);
  }
  const renewDeadlineMs = positiveInt('renewDeadlineMs', options.renewDeadlineMs ?? Math.floor(timeoutMs / 2));
  if (renewDeadlineMs <= intervalMs || renewDeadlineMs >= timeoutMs - intervalMs) {
    throw new ConfigError(
      'renewDeadlineMs',
      renewDeadlineMs,
      `Expected \`renewDeadlineMs\` to be greater than \`intervalMs\` (${intervalMs}) and less than \`timeoutMs\` − \`intervalMs\` (${timeoutMs - intervalMs})`,
    );
  }
  const settleMs = positiveInt('settleMs', options.settleMs ?? Math.max(1, Math.floor(intervalMs / 10)));
  if (settleMs > intervalMs) throw new ConfigError('settleMs', settleMs, `Expected \`settleMs\` to be at most \`intervalMs\` (${intervalMs})`);
  const operationTimeoutMs = positiveInt('operationTimeoutMs', options.operationTimeoutMs ?? Math.max(1, Math.floor(intervalMs / 2)));
  if (operationTimeoutMs > intervalMs) {
    throw new ConfigError('operationTimeoutMs', operationTimeoutMs, `Expected \`operationTimeoutMs\` to be at most \`intervalMs\` (${intervalMs})`);
  }
  const leaderWorkTimeoutMs = options.leaderWorkTimeoutMs ?? timeoutMs;
  if (typeof leaderWorkTimeoutMs !== 'number' || !Number.isInteger(leaderWorkTimeoutMs) || leaderWorkTimeoutMs < 0 || leaderWorkTimeoutMs > timeoutMs) {
    throw new ConfigError(
      'leaderWorkTimeoutMs',
      leaderWorkTimeoutMs,
      `Expected \`leaderWorkTimeoutMs\` to be an integer from 0 to \`timeoutMs\` (${timeoutMs}): after T without publication the others elect anyway`,
    );
  }
  return { intervalMs, timeoutMs, renewDeadlineMs, settleMs, operationTimeoutMs, leaderWorkTimeoutMs };
}

/** The most a pace factor stretches a duration (`MAX_PACE` of `Pace`: every operation timing out). */
const MAX_PACE = 4;

/** A pace factor within 1 to {@link MAX_PACE} (anything else, NaN included, is 1 or 4). */
function paced(f: number): number {
  return Number.isNaN(f) ? 1 : Math.min(MAX_PACE, Math.max(1, f));
}

/** A positive integer number of milliseconds, or a `ConfigError` naming `field`. */
function positiveInt(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(field, value, `Expected \`${field}\` to be a positive integer (milliseconds)`);
  }
  return value;
}

import type { FollowerTiming } from '@roster/follower/internal';
import { ConfigError } from '@roster/kv-adapter';

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
 * | `tierSpacingMs(r)` | I + 3 min(r, τ) | the time between two tiers of candidates, r the mean window read |
 * | `leaderWorkTimeoutMs` | T (configured, ≤ T) | how long `stop()` and `resign()` wait for the leader's work to settle before the goodbye |
 * | `standAsideMs` | T | a leader that resigned does not stand for this long, so that another node takes over |
 * | `preemptSettleMs` | T | a member of higher priority PINGs the leader this long before the leader hands over to it |
 * | `preemptHealthyMs` | 2I | a member whose last PING is older than this is not healthy enough to take over |
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
  readonly leaderWorkTimeoutMs: number;
  readonly standAsideMs: number;
  readonly preemptSettleMs: number;
  readonly preemptHealthyMs: number;
  /** The time between two tiers of candidates, given this node's mean window read time. */
  readonly tierSpacingMs: (meanReadMs: number | undefined) => number;
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
  return {
    ...d,
    restMs: I,
    stillMs: 1.5 * I,
    scanEveryMs: 5 * T,
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
    standAsideMs: T,
    preemptSettleMs: T,
    preemptHealthyMs: 2 * I,
    tierSpacingMs: (meanReadMs) => I + 3 * Math.min(meanReadMs ?? 0, tau),
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

/** A positive integer number of milliseconds, or a `ConfigError` naming `field`. */
function positiveInt(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(field, value, `Expected \`${field}\` to be a positive integer (milliseconds)`);
  }
  return value;
}

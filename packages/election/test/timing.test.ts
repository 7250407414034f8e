import { ConfigError } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { deriveTiming, resolveDurations } from '../src/timing.js';

describe('the timing table', () => {
  it('derives every duration by name from I, T, R and the operation timeout (the defaults: I = 1 s)', () => {
    const durations = resolveDurations({});
    expect(durations).toEqual({ intervalMs: 1000, timeoutMs: 5000, renewDeadlineMs: 2500, settleMs: 100, operationTimeoutMs: 500, leaderWorkTimeoutMs: 5000 });
    const { tierSpacingMs, pingPeriodMs, joinRetryPacedMs, joinFailedWaitMs, restPacedMs, standPacedMs, stepPacedMs, stillScanPacedMs, candidateStepMs, pongPeriodMs, ...named } = deriveTiming(durations);
    expect(named).toEqual({
      ...durations,
      restMs: 1000,
      stillMs: 1500,
      scanEveryMs: 25_000,
      stillPollMs: 500,
      stillScanMs: 1900,
      readGapMs: 2000,
      slowReadMs: 2500,
      claimGraceMs: 2000,
      claimTimeoutMs: 6000,
      pongTimeoutMs: 7000,
      joinRetryMs: 5000,
      staleCheckHorizonMs: 3000,
      followerQuietMs: 1500,
      beatOffsetMs: 500,
      listStepTtlMs: 20_000,
      listStepBudgetMs: 250,
      revalidateChainMs: 2000,
      revalidateCycleMs: 1125,
      standAsideMs: 5000,
      preemptSettleMs: 5000,
      preemptHealthyMs: 2000,
      blindClaimWaitMs: 2500,
      paceRoundTripMs: 250,
    });
    // I + 3 × the mean window read, that mean counted up to the operation timeout.
    expect([undefined, 10, 400, 10_000].map(tierSpacingMs)).toEqual([1000, 1030, 2200, 2500]);
  });

  it('paces PINGs, joins, polls and candidacies by the factor of a slow store, unpaced at 1 and bounded at 4 (the defaults)', () => {
    const t = deriveTiming(resolveDurations({}));
    const at = (fn: (f: number) => number): number[] => [1, 2, 4, 100, Number.NaN].map(fn);
    // PINGs: at most 2I − τ apart (completions within 2I: the PONG clock runs on), ≤ T − 2I − τ.
    expect(at(t.pingPeriodMs)).toEqual([1000, 1500, 1500, 1500, 1000]);
    expect(at(t.joinRetryPacedMs)).toEqual([5000, 10_000, 20_000, 20_000, 5000]);
    expect(at(t.joinFailedWaitMs)).toEqual([0, 1000, 3000, 3000, 0]);
    expect(at(t.restPacedMs)).toEqual([1000, 2000, 4000, 4000, 1000]);
    expect(at(t.standPacedMs)).toEqual([0, 1000, 3000, 3000, 0]);
    // Polls: at most 1.5I, so a follower's reads never start 2I (the read gap) apart.
    expect(at(t.stepPacedMs)).toEqual([1000, 1500, 1500, 1500, 1000]);
    // Scans of a still Version: 1.9I on a healthy store (every fourth poll), at most T/2 apart on a slow one.
    expect(at(t.stillScanPacedMs)).toEqual([1900, 2500, 2500, 2500, 1900]);
    expect(at(t.candidateStepMs)).toEqual([1000, 2000, 4000, 4000, 1000]);
    // The leader's PONG round: at most 2I, and news of a member every P + τ + (1 + 7/32) × round
    // ≤ T − I (P = 1.5I, the longest PING period; a worker's step starts up to 7/32 of a round
    // late: 1,500 + 500 + 1.21875 × 1,641 = 3,999.9).
    expect(at(t.pongPeriodMs)).toEqual([1000, 1641, 1641, 1641, 1000]);
  });

  it('keeps PINGs at I where T leaves no room for slower ones, and bounds the rest and the stand wait by T', () => {
    const t = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 300, renewDeadlineMs: 150 }));
    expect(t.pingPeriodMs(4)).toBe(100);
    expect([t.restPacedMs(4), t.standPacedMs(4), t.candidateStepMs(4)]).toEqual([300, 300, 300]);
    // PONG rounds keep I too: one more would leave a PING found later than T − I.
    expect(t.pongPeriodMs(4)).toBe(100);
    // I = 100, T = 500 (the bench's Redis timing): PINGs up to 150 ms apart, the leader drops at 500.
    const bench = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 500 }));
    expect(bench.pingPeriodMs(4)).toBe(150);
    // And PONG rounds up to 164 ms apart: news every 150 + 50 + 1.21875 × 164 = 399.9 ≤ T − I.
    expect([bench.pongPeriodMs(1.5), bench.pongPeriodMs(4)]).toEqual([150, 164]);
    // T = 4I leaves one interval between two rounds more than the PING period: 1,500 + 500 + 1,000 = 3,000.
    expect(deriveTiming(resolveDurations({ intervalMs: 1000, timeoutMs: 4000 })).pongPeriodMs(4)).toBe(1000);
  });

  it('at a short timing the maxima take the other side (I = 100, T = 300: slow read 2I, join retry T, chain T − R − τ)', () => {
    const t = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 300, renewDeadlineMs: 150 }));
    expect([t.slowReadMs, t.joinRetryMs, t.revalidateChainMs]).toEqual([200, 300, 100]);
    const u = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 2000 }));
    expect([u.slowReadMs, u.joinRetryMs, u.revalidateChainMs]).toEqual([1000, 2000, 950]);
    // A re-validating cycle: at most 0.45R when cycles may overrun I, 0.9R − I when R leaves less
    // (I = 100 ms: R = 250 ms, the bench's, then R = 150 ms).
    expect(deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 500 })).revalidateCycleMs).toBeCloseTo(112.5);
    expect(t.revalidateCycleMs).toBeCloseTo(35);
  });

  it('rejects durations that break the protocol, naming the field', () => {
    const field = (options: Parameters<typeof resolveDurations>[0]): string | undefined => {
      try {
        resolveDurations(options);
        return undefined;
      } catch (error) {
        return ConfigError.is(error) ? error.field : 'not a ConfigError';
      }
    };
    expect(field({ intervalMs: 0 })).toBe('intervalMs');
    expect(field({ intervalMs: 100, timeoutMs: 200 })).toBe('timeoutMs');
    expect(field({ intervalMs: 100, timeoutMs: 500, renewDeadlineMs: 100 })).toBe('renewDeadlineMs');
    expect(field({ intervalMs: 100, timeoutMs: 500, renewDeadlineMs: 400 })).toBe('renewDeadlineMs');
    expect(field({ intervalMs: 100, settleMs: 101 })).toBe('settleMs');
    expect(field({ intervalMs: 100, operationTimeoutMs: 101 })).toBe('operationTimeoutMs');
    expect(field({ intervalMs: 100, timeoutMs: 500, renewDeadlineMs: 250, settleMs: 100, operationTimeoutMs: 100 })).toBeUndefined();
  });
});

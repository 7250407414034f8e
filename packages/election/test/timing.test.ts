import { ConfigError } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { deriveTiming, resolveDurations } from '../src/timing.js';

describe('the timing table', () => {
  it('derives every duration by name from I, T, R and the operation timeout (the defaults: I = 1 s)', () => {
    const durations = resolveDurations({});
    expect(durations).toEqual({ intervalMs: 1000, timeoutMs: 5000, renewDeadlineMs: 2500, settleMs: 100, operationTimeoutMs: 500, leaderWorkTimeoutMs: 5000 });
    const { tierSpacingMs, pingPeriodMs, joinRetryPacedMs, joinFailedWaitMs, restPacedMs, standPacedMs, stepPacedMs, stillScanPacedMs, candidateStepMs, ...named } = deriveTiming(durations);
    expect(named).toEqual({
      ...durations,
      restMs: 1000,
      stillMs: 1500,
      scanEveryMs: 25_000,
      stillPollMs: 500,
      stillScanMs: 900,
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
    // Scans of a still Version: 0.9I on a healthy store, at most T/2 apart on a slow one.
    expect(at(t.stillScanPacedMs)).toEqual([900, 1800, 2500, 2500, 900]);
    expect(at(t.candidateStepMs)).toEqual([1000, 2000, 4000, 4000, 1000]);
  });

  it('keeps PINGs at I where T leaves no room for slower ones, and bounds the rest and the stand wait by T', () => {
    const t = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 300, renewDeadlineMs: 150 }));
    expect(t.pingPeriodMs(4)).toBe(100);
    expect([t.restPacedMs(4), t.standPacedMs(4), t.candidateStepMs(4)]).toEqual([300, 300, 300]);
    // I = 100, T = 500 (the bench's Redis timing): PINGs up to 150 ms apart, the leader drops at 500.
    expect(deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 500 })).pingPeriodMs(4)).toBe(150);
  });

  it('at a short timing the maxima take the other side (I = 100, T = 300: slow read 2I, join retry T, chain T − R − τ)', () => {
    const t = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 300, renewDeadlineMs: 150 }));
    expect([t.slowReadMs, t.joinRetryMs, t.revalidateChainMs]).toEqual([200, 300, 100]);
    const u = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 2000 }));
    expect([u.slowReadMs, u.joinRetryMs, u.revalidateChainMs]).toEqual([1000, 2000, 950]);
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

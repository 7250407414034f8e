import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryKV, Namespace } from '@roster/kv-adapter';
import { VirtualClock } from '@roster/testing';
import { PrimaryContender } from '../src/index.js';
import { DelayedKV, prng } from './support/DelayedKV.js';
import { DriftingClock } from './support/DriftingClock.js';
import { claimsIncrease, maxOverlap, recordTerms, type Term } from './support/terms.js';

/** The drift rate the property allows: every local clock runs at a rate within 1 ± DRIFT of the store's. */
const DRIFT = 0.1;

/**
 * The bound docs/primary.md derives: the longest two instances can both act as primary of one
 * type, in store time. A primary stops T − I of its local time after the start of its last
 * successful round, which is at most (T − I) / (1 − δ) of store time; nobody else can write the
 * entry until store time is more than T past that round's write, which came after its start.
 */
export function overlapBound(intervalMs: number, timeoutMs: number, drift: number): number {
  return Math.max(0, (timeoutMs - intervalMs) / (1 - drift) - timeoutMs);
}

const SEED = Number(process.env.ROSTER_SEED ?? 20_240_607);
const RUNS = Number(process.env.ROSTER_RUNS ?? 120);
const namespace = new Namespace('prop', 'test');

interface ContenderPlan {
  readonly offset: number;
  readonly rate: number;
  readonly startAt: number;
  /** Each operation of this contender is delayed twice (request, reply) by up to this many I. */
  readonly maxDelayRatio: number;
  readonly stop: { readonly at: number; readonly kind: 'crash' | 'graceful' } | null;
  readonly outages: readonly { readonly at: number; readonly forT: number }[];
}

interface Scenario {
  readonly intervalMs: number;
  readonly ratio: number;
  readonly seed: number;
  readonly contenders: readonly ContenderPlan[];
  /** Times (fractions of the run) when whoever acts as primary is cut off from the store, and for how many T. */
  readonly cuts: readonly { readonly at: number; readonly forT: number }[];
}

const contenderPlan: fc.Arbitrary<ContenderPlan> = fc.record({
  offset: fc.double({ min: -1e9, max: 1e9, noNaN: true }),
  // The extreme rates are where overlaps happen: draw them often.
  rate: fc.oneof(fc.constantFrom(1 - DRIFT, 1 + DRIFT), fc.double({ min: 1 - DRIFT, max: 1 + DRIFT, noNaN: true })),
  startAt: fc.double({ min: 0, max: 0.3, noNaN: true }),
  maxDelayRatio: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1.2, noNaN: true })),
  stop: fc.option(fc.record({ at: fc.double({ min: 0.1, max: 1, noNaN: true }), kind: fc.constantFrom('crash' as const, 'graceful' as const) })),
  outages: fc.array(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), forT: fc.double({ min: 0.05, max: 2, noNaN: true }) }), { maxLength: 3 }),
});

const scenario: fc.Arbitrary<Scenario> = fc.record({
  intervalMs: fc.integer({ min: 20, max: 200 }),
  // T / I from just above 2 to 30: both sides of the T ≤ I / δ = 10 I line.
  ratio: fc.oneof(fc.double({ min: 2.01, max: 10, noNaN: true }), fc.double({ min: 10, max: 30, noNaN: true })),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  contenders: fc.array(contenderPlan, { minLength: 2, maxLength: 4 }),
  cuts: fc.array(fc.record({ at: fc.double({ min: 0.05, max: 1, noNaN: true }), forT: fc.double({ min: 0.5, max: 3, noNaN: true }) }), { minLength: 1, maxLength: 4 }),
});

interface Outcome {
  readonly timeoutMs: number;
  readonly intervalMs: number;
  readonly terms: Term[];
  readonly overlap: number;
  readonly bound: number;
}

async function run(s: Scenario): Promise<Outcome> {
  const I = s.intervalMs;
  const T = Math.max(2 * I + 1, Math.floor(s.ratio * I));
  const horizon = 25 * T;
  const base = new VirtualClock();
  const store = new MemoryKV({ clock: base }); // store time = the base clock's wall time
  const views: DelayedKV[] = [];
  const contenders = s.contenders.map((plan, i) => {
    const kv = new DelayedKV(store, base, plan.maxDelayRatio * I, prng(s.seed + i));
    views.push(kv);
    let incarnation = 0;
    return new PrimaryContender({
      store: kv,
      namespace,
      utype: 'role',
      clock: new DriftingClock(base, plan.offset, plan.rate),
      intervalMs: I,
      timeoutMs: T,
      generateId: () => `c${i}.${incarnation++}`,
    });
  });
  const terms = recordTerms(contenders, base);
  s.contenders.forEach((plan, i) => {
    const contender = contenders[i]!;
    const view = views[i]!;
    base.setTimer(() => contender.start(), plan.startAt * horizon);
    if (plan.stop) {
      const release = plan.stop.kind === 'graceful';
      base.setTimer(() => void contender.stop({ release }), plan.stop.at * horizon);
    }
    for (const outage of plan.outages) {
      base.setTimer(() => (view.down = true), outage.at * horizon);
      base.setTimer(() => (view.down = false), outage.at * horizon + outage.forT * T);
    }
  });
  for (const cut of s.cuts) {
    base.setTimer(() => {
      const i = contenders.findIndex((c) => c.isActing);
      if (i < 0) return;
      views[i]!.down = true;
      base.setTimer(() => (views[i]!.down = false), cut.forT * T);
    }, cut.at * horizon);
  }
  await base.advance(horizon);
  // A graceful stop scheduled near the end may still be releasing: keep time moving until all are done.
  let stopped = false;
  const stopping = Promise.all(contenders.map((c) => c.stop({ release: false }))).then(() => (stopped = true));
  while (!stopped) await base.advance(I);
  await stopping;
  return { timeoutMs: T, intervalMs: I, terms, overlap: maxOverlap(terms, base.wallTime()), bound: overlapBound(I, T, DRIFT) };
}

const stats = { runs: 0, withPrimary: 0, unsafeRegimeRuns: 0, worstOverlap: 0, worstRatio: 0 };

describe('safety under clock offset, drift within ±10 % and operation delays', () => {
  afterAll(() => {
    console.log(`[primary safety] seed=${SEED} runs=${stats.runs} runsWithAPrimary=${stats.withPrimary} ` +
      `runsWithT>I/δ=${stats.unsafeRegimeRuns} worstOverlapMs=${stats.worstOverlap.toFixed(2)} worstOverlap/bound=${stats.worstRatio.toFixed(3)}`);
  });

  it('two instances never act as primary of one type for longer than the documented bound (0 when T ≤ I / δ)', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const outcome = await run(s);
        stats.runs++;
        if (outcome.terms.length > 0) stats.withPrimary++;
        if (outcome.bound > 0) {
          stats.unsafeRegimeRuns++;
          stats.worstRatio = Math.max(stats.worstRatio, outcome.overlap / outcome.bound);
        }
        stats.worstOverlap = Math.max(stats.worstOverlap, outcome.overlap);
        // Floating-point slack only: drifting timers are scaled by 1 / rate.
        expect(outcome.overlap, `I=${outcome.intervalMs} T=${outcome.timeoutMs} bound=${outcome.bound}`).toBeLessThanOrEqual(outcome.bound + 1e-6);
        // The claim time of each term is a fencing token: it grows from one term to the next.
        expect(claimsIncrease(outcome.terms)).toBe(true);
      }),
      { seed: SEED, numRuns: RUNS },
    ).catch((error: unknown) => {
      console.error(`[primary safety] failed with seed ${SEED}; rerun with ROSTER_SEED=${SEED}`);
      throw error;
    });
    // Not vacuous: most runs elect someone.
    expect(stats.withPrimary).toBeGreaterThan(RUNS / 2);
  }, 300_000);

  it('the bound is needed when T > I / δ: a slow-clocked primary cut off from the store overlaps its successor, within the bound', async () => {
    const I = 100;
    const T = 2000; // T / I = 20 > 1 / δ = 10
    const bound = overlapBound(I, T, DRIFT); // 1900 / 0.9 − 2000 ≈ 111 ms
    // The overlap depends on where the successor's polls fall; try every phase, 5 ms apart.
    const overlaps: number[] = [];
    for (let phase = 0; phase < I; phase += 5) {
      const base = new VirtualClock();
      const store = new MemoryKV({ clock: base });
      const slowView = new DelayedKV(store, base, 0, prng(1));
      const slow = new PrimaryContender({ store: slowView, namespace, utype: 'role', clock: new DriftingClock(base, 5e8, 1 - DRIFT), intervalMs: I, timeoutMs: T, generateId: () => 'slow' });
      const fast = new PrimaryContender({ store, namespace, utype: 'role', clock: new DriftingClock(base, -3e8, 1 + DRIFT), intervalMs: I, timeoutMs: T, generateId: () => 'fast' });
      const terms = recordTerms([slow, fast], base);
      slow.start();
      await base.advance(5 * I + phase);
      fast.start();
      await base.advance(3 * I);
      expect(slow.isActing).toBe(true);
      slowView.down = true; // the slow primary keeps acting until its (slow) local deadline
      await base.advance(3 * T);
      await Promise.all([slow.stop({ release: false }), fast.stop({ release: false })]);
      overlaps.push(maxOverlap(terms, base.wallTime()));
    }
    const worst = Math.max(...overlaps);
    console.log(`[primary safety] I=${I} T=${T} drift=${DRIFT}: worst overlap over ${overlaps.length} phases ${worst.toFixed(1)} ms, bound ${bound.toFixed(1)} ms`);
    expect(worst).toBeGreaterThan(0);
    expect(worst).toBeLessThanOrEqual(bound + 1e-6);
  });
});

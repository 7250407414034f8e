import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Sim, T, ranges } from './support/harness.js';

const SEED = Number(process.env.FC_SEED ?? 2002);
const RUNS = Number(process.env.FC_RUNS ?? 100);
/** How long the cluster may take to settle after the last event. */
const CONVERGENCE_LIMIT = Number(process.env.FC_LIMIT ?? 10 * T);

type Action =
  | { readonly kind: 'join'; readonly name: string; readonly threads: number }
  | { readonly kind: 'leave'; readonly pick: number }
  | { readonly kind: 'crash'; readonly pick: number }
  | { readonly kind: 'wait'; readonly ms: number };

const name = fc.stringMatching(/^[a-zA-Z0-9]{1,6}$/);
const join = fc.record({ kind: fc.constant('join' as const), name, threads: fc.integer({ min: 1, max: 8 }) });
const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: join, weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('leave' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('crash' as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 3 * T }) }), weight: 3 },
);
const scenario = fc.record({ initial: fc.array(join, { minLength: 1, maxLength: 6 }), actions: fc.array(action, { maxLength: 14 }) });

describe('property: after convergence the instances divide 0 … total − 1 exactly', () => {
  it('random instances with random thread counts join, leave and crash; once settled, the ranges are disjoint and cover the total', async () => {
    let slowest = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ initial, actions }) => {
        const sim = new Sim();
        let n = 0;
        const start = (a: { name: string; threads: number }): void => void sim.join(`${a.name}-${n++}`, a.threads);
        for (const a of initial) start(a);
        for (const a of actions) {
          const live = sim.live();
          if (a.kind === 'join') start(a);
          else if (a.kind === 'wait') await sim.clock.advance(a.ms);
          else if (live.length > 0) {
            const victim = live[a.pick % live.length]!;
            if (a.kind === 'leave') void victim.leave();
            else victim.destroy();
          }
        }
        const took = await sim.until(() => sim.converged(), CONVERGENCE_LIMIT, 'convergence');
        slowest = Math.max(slowest, took);

        const live = sim.live();
        const total = live.reduce((sum, h) => sum + h.threads, 0);
        const covered = new Array<number>(total).fill(0);
        for (const r of ranges(live)) {
          expect(r.total).toBe(total);
          expect(r.from).toBeGreaterThanOrEqual(0);
          expect(r.to).toBeLessThanOrEqual(total);
          for (let k = r.from; k < r.to; k++) covered[k] = covered[k]! + 1;
        }
        expect(covered.every((c) => c === 1)).toBe(true);
        await sim.leaveAll();
      }),
      // fast-check prints the seed and the shrunk counterexample on failure; replay with FC_SEED.
      { seed: SEED, numRuns: RUNS },
    );
    console.info(`balance property: ${RUNS} runs (seed ${SEED}), slowest convergence after the last event ${slowest} ms (limit ${CONVERGENCE_LIMIT})`);
  });
});

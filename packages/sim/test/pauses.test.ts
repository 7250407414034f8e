import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Scenario } from '../src/index.js';
import { leaderPause } from '../src/properties/pauseTolerance.js';

const I = 100;
const T = 500;
const timing = { intervalMs: I, timeoutMs: T };

/** Three nodes, n1 first so that it leads; n1 paused for `forMs` at `at` once all have converged. */
function leaderPaused(at: number, forMs: number): Scenario {
  return {
    seed: 1,
    timing,
    steps: [
      { at: 0, do: 'start', node: 'n1' },
      { at: 2 * T, do: 'start', node: 'n2' },
      { at: 2 * T, do: 'start', node: 'n3' },
      { at, do: 'pause', node: 'n1', forMs },
    ],
  };
}

const params = { seed: 1313, numRuns: 40 };

describe('stall tolerance: a sharp failure window around the leader’s pause', () => {
  it('a leader pause shorter than T − I never makes a follower stand nor another node lead; dual leadership stays zero', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: 1, max: T - I - 1 }), async (at, forMs) => {
        const run = await runScenario(leaderPaused(at, forMs));
        const outcome = leaderPause(run);
        expect(outcome).toBeDefined();
        expect(outcome?.stood).toEqual([]);
        expect(outcome?.otherLeaders).toEqual([]);
        const check = checkRun(run);
        expect(check.violations).toEqual([]);
        expect(check.measures.dualLeadershipMs).toBe(0);
      }),
      params,
    );
  });

  it('a leader pause of T + I or more always ends in another leader; dual leadership stays zero', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: T + I, max: 4 * T }), async (at, forMs) => {
        const run = await runScenario(leaderPaused(at, forMs));
        const outcome = leaderPause(run);
        expect(outcome).toBeDefined();
        expect(outcome?.otherLeaders.length).toBeGreaterThan(0);
        const check = checkRun(run);
        expect(check.violations).toEqual([]);
        expect(check.measures.dualLeadershipMs).toBe(0);
      }),
      params,
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Run, type Scenario } from '../src/index.js';

const I = 100;
const T = 500;

/** Three nodes, n1 first so that it leads at renew deadline `R`; n1 paused for `forMs` at `at` once all have converged. */
function leaderPaused(R: number, at: number, forMs: number): Scenario {
  return {
    seed: at,
    timing: { intervalMs: I, timeoutMs: T, renewDeadlineMs: R },
    steps: [
      { at: 0, do: 'start', node: 'n1' },
      { at: 2 * T, do: 'start', node: 'n2' },
      { at: 2 * T, do: 'start', node: 'n3' },
      { at, do: 'pause', node: 'n1', forMs },
    ],
  };
}

/** The role updates of any node from `at` on: what a user of `role` updates or `whileLeader()` sees change. */
const roleChanges = (run: Run, at: number): string[] =>
  run.history.entries.flatMap((e) => (e.kind === 'update' && e.at >= at && e.update.type === 'role' ? [`${e.node} ${e.update.role} (${e.update.reason})`] : []));

describe('the renew deadline R sets the disruption-free pause: R − I, whatever the stall tolerance (T − I/2)', () => {
  for (const R of [150, 250, 350]) {
    it(`R = ${R} ms: a leader pause shorter than R − I changes no node's role; one of R or more lapses the lease, and nobody else leads below T − I/2`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + I }), fc.integer({ min: 1, max: T - I / 2 - 1 }), async (at, forMs) => {
          const run = await runScenario(leaderPaused(R, at, forMs));
          const changes = roleChanges(run, at);
          if (forMs < R - I) expect(changes).toEqual([]);
          if (forMs >= R) expect(changes).toContain('n1 candidate (lease-expired)');
          // Whatever R, the stall tolerance holds: no one else stands or leads.
          expect(changes.filter((c) => !c.startsWith('n1 '))).toEqual([]);
          expect(checkRun(run).violations).toEqual([]);
        }),
        { seed: 2505, numRuns: 12 },
      );
    });
  }
});

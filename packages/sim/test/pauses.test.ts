import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Run, type Scenario } from '../src/index.js';
import { leaderPause } from '../src/properties/pauseTolerance.js';

const I = 100;
const T = 500;
const timing = { intervalMs: I, timeoutMs: T };

/** Three nodes, n1 first so that it leads; n1 paused for `forMs` at `at` once all have converged. */
function leaderPaused(at: number, forMs: number, t: { intervalMs: number; timeoutMs: number } = timing): Scenario {
  return {
    seed: 1,
    timing: t,
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
  it('a leader pause shorter than T − I/2 never makes a follower stand nor another node lead; dual leadership stays zero', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: 1, max: T - I / 2 - 1 }), async (at, forMs) => {
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

  it('at I = 50 ms too, a leader pause shorter than T − I/2 never makes a follower stand nor another node lead', async () => {
    const fast = { intervalMs: 50, timeoutMs: T };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 100 }), fc.integer({ min: 1, max: T - 25 - 1 }), async (at, forMs) => {
        const run = await runScenario(leaderPaused(at, forMs, fast));
        const outcome = leaderPause(run);
        expect(outcome).toBeDefined();
        expect(outcome?.stood).toEqual([]);
        expect(outcome?.otherLeaders).toEqual([]);
        expect(checkRun(run).violations).toEqual([]);
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

/** How long after `at` a node other than `gone` first had `isLeader()` true (Infinity: never). */
function replacedAfter(run: Run, at: number, gone: string): number {
  const next = run.history.samples.find((s) => s.at >= at && s.leaders.some((l) => l !== gone));
  return next === undefined ? Infinity : next.at - at;
}

describe('resign after a pause: the hand-over is as quick as ever', () => {
  it('a leader whose lease lapsed in a pause reads the window once per interval, as before the pause (one loop, not two)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: T / 2, max: T - I - 1 }), async (at, forMs) => {
        const run = await runScenario(leaderPaused(at, forMs));
        // The leader's window reads (a header `getRange` per nonce, or a whole `get`) in ten intervals before the pause and ten from 2I after it.
        const reads = (from: number): number =>
          run.costs.filter((c) => c.node === 'n1' && (c.op === 'get' || c.op === 'getRange') && c.at >= from && c.at < from + 10 * I).length;
        const after = at + forMs + 2 * I;
        expect(run.history.end).toBeGreaterThan(after + 10 * I);
        const before = reads(at - 10 * I);
        expect(before).toBeGreaterThan(0);
        expect(Math.abs(reads(after) - before)).toBeLessThanOrEqual(before / 10);
      }),
      params,
    );
  });

  it('a leader that resigns right after a pause long enough for its lease to lapse is replaced within T', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: T / 2, max: T - I - 1 }), fc.integer({ min: 0, max: 3 * I }), async (at, forMs, after) => {
        const stopAt = at + forMs + after;
        const run = await runScenario({ ...leaderPaused(at, forMs), steps: [...leaderPaused(at, forMs).steps, { at: stopAt, do: 'stop', node: 'n1' }] });
        expect(replacedAfter(run, stopAt, 'n1')).toBeLessThan(T);
        const check = checkRun(run);
        expect(check.violations).toEqual([]);
        expect(check.measures.dualLeadershipMs).toBe(0);
      }),
      params,
    );
  });

  it('once a paused leader has lost leadership, its successor resigning is replaced within T, by the node that was paused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: T + I, max: 3 * T }), fc.integer({ min: 3 * T, max: 3 * T + 2 * I }), async (at, forMs, after) => {
        const stopAt = at + forMs + after;
        const run = await runScenario({
          seed: 1,
          timing,
          steps: [
            { at: 0, do: 'start', node: 'n1' },
            { at: 2 * T, do: 'start', node: 'n2' },
            { at, do: 'pause', node: 'n1', forMs },
            { at: stopAt, do: 'stop', node: 'n2' },
          ],
        });
        expect(run.history.samples.filter((s) => s.at < stopAt).at(-1)?.leaders).toEqual(['n2']);
        expect(replacedAfter(run, stopAt, 'n2')).toBeLessThan(T);
        const check = checkRun(run);
        expect(check.violations).toEqual([]);
        expect(check.measures.dualLeadershipMs).toBe(0);
      }),
      params,
    );
  });
});

describe('a paused follower', () => {
  /**
   * Three nodes, n1 leads; the follower n3, whose replies take 30–45 ms (so that a pause often
   * catches a read in flight, as a busy event loop holds a reply), is paused for `forMs` at `at`.
   */
  function followerPaused(at: number, forMs: number): Scenario {
    return {
      seed: 2,
      timing,
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 2 * T, do: 'start', node: 'n2' },
        { at: 2 * T, do: 'start', node: 'n3' },
        { at: 2 * T, do: 'latency', node: 'n3', minMs: 30, maxMs: 45, forMs: 20 * T, mode: 'apply-then-delay' },
        { at, do: 'pause', node: 'n3', forMs },
      ],
    };
  }

  it('does not stand on resume for the PONGs it could not see while paused (silence while not looking is no evidence)', async () => {
    const at = 3101;
    const run = await runScenario(followerPaused(at, 641));
    const stood = run.history.entries.filter((e) => e.kind === 'update' && e.at >= at && e.update.type === 'role' && e.update.role === 'candidate');
    expect(stood).toEqual([]);
  });

  it('never moves leadership, however long the pause and wherever it falls in its reads: on resume the read in flight counts from its completion', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 6 * T, max: 6 * T + 2 * I }), fc.integer({ min: T, max: 4 * T }), async (at, forMs) => {
        const run = await runScenario(followerPaused(at, forMs));
        const stood = run.history.entries.flatMap((e) => (e.kind === 'update' && e.at >= at && e.update.type === 'role' && e.update.role === 'candidate' ? [e.node] : []));
        const leaders = new Set(run.history.samples.filter((s) => s.at >= at).flatMap((s) => s.leaders));
        expect(stood).toEqual([]);
        expect([...leaders].filter((l) => l !== 'n1')).toEqual([]);
        expect(checkRun(run).violations).toEqual([]);
      }),
      params,
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, formatScenario, runScenario, scenarioArbitrary, type Run, type Scenario } from '../src/index.js';
import { checkScenario } from '../src/scenario/checkScenario.js';

const I = 1000;
const T = 5000;

/** Three nodes, `n1` first (so it leads), and `steps` after they converged. */
function group(steps: Scenario['steps']): Scenario {
  return {
    seed: 3,
    timing: { intervalMs: I, timeoutMs: T },
    steps: [{ at: 0, do: 'start', node: 'n1' }, { at: 2000, do: 'start', node: 'n2' }, { at: 2000, do: 'start', node: 'n3' }, ...steps],
  };
}

/** The first time at or after `from` some node's updates made it leader, and which node. */
function firstReportedLeader(run: Run, from: number): { at: number; node: string } | undefined {
  for (const e of run.history.entries) {
    if (e.kind === 'update' && e.at >= from && e.update.type === 'role' && e.update.role === 'leader') return { at: e.at, node: e.node };
  }
  return undefined;
}

describe('the resign step', () => {
  it('the leader resigns: told at once (resigned), another node reported as leader within about an interval, no claim of its own for T, every property holds', async () => {
    const at = 20_000;
    const run = await runScenario(group([{ at, do: 'resign', node: 'n1' }]));
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n1 led when it resigned, and its users were told at that instant.
    expect(run.history.samples.filter((s) => s.at < at).at(-1)?.leaders).toEqual(['n1']);
    const told = run.history.updatesOf('n1').find((u) => u.at >= at && u.update.type === 'role');
    expect(told).toEqual({ at, update: { type: 'role', role: 'follower', previous: 'leader', reason: 'resigned' } });
    const next = firstReportedLeader(run, at)!;
    expect(next.node).not.toBe('n1');
    expect(next.at - at).toBeLessThanOrEqual(I + I / 2);
    // n1 stood aside while the others stood on its goodbye…
    expect(run.history.claims.filter((c) => c.at >= at && c.at < at + T).map((c) => c.node)).not.toContain('n1');
    // …and stays a member: listed by the new leader at the end.
    expect(run.history.samples.at(-1)?.converged).toBe(true);
  });

  it('without a node, whichever node leads resigns; a follower’s resign is skipped', async () => {
    const run = await runScenario(group([{ at: 20_000, do: 'resign', node: 'n2' }, { at: 30_000, do: 'resign' }]));
    expect(checkRun(run).violations).toEqual([]);
    const steps = run.history.entries.flatMap((e) => (e.kind === 'step' ? [e] : []));
    expect(steps.find((e) => e.at === 20_000)?.skipped).toBe('not leader');
    expect(steps.find((e) => e.at === 30_000)?.skipped).toBeUndefined();
    expect(run.history.updatesOf('n1').some((u) => u.update.type === 'role' && u.update.reason === 'resigned')).toBe(true);
  });

  it('a lone node that resigns leads again after standing aside for T', async () => {
    const at = 10_000;
    const run = await runScenario({ seed: 1, timing: { intervalMs: I, timeoutMs: T }, steps: [{ at: 0, do: 'start', node: 'n1' }, { at, do: 'resign' }] });
    expect(checkRun(run).violations).toEqual([]);
    const back = firstReportedLeader(run, at)!;
    expect(back.node).toBe('n1');
    expect(back.at - at).toBeGreaterThanOrEqual(T);
    expect(back.at - at).toBeLessThanOrEqual(T + 2 * I);
  });

  it('is part of the scenario language: checked, printed, and drawn by the generators', () => {
    const scenario = checkScenario(group([{ at: 20_000, do: 'resign', node: 'n1' }, { at: 30_000, do: 'resign' }]));
    const text = formatScenario(scenario);
    expect(text).toContain('20000 ms  resign n1');
    expect(text).toContain('30000 ms  resign (whichever node leads)');
    expect(() => checkScenario(group([{ at: 20_000, do: 'resign', node: 'no way' }]))).toThrow(/node/);
    const drawn = fc.sample(scenarioArbitrary({ kinds: ['resign'], maxSteps: 4 }), { numRuns: 50, seed: 1 }).flatMap((s) => s.steps.filter((step) => step.do === 'resign'));
    expect(drawn.some((step) => step.node === undefined)).toBe(true);
    expect(drawn.some((step) => step.node !== undefined)).toBe(true);
  });
});

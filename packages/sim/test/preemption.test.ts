import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, formatScenario, rollingRun, rollingScenarioArbitrary, runScenario, type Run, type Scenario } from '../src/index.js';
import { checkScenario } from '../src/scenario/checkScenario.js';

const I = 1000;
const T = 5000;

/** Five nodes of priority `from`, n1 first (so it leads), then each redeployed onto `to`, n2 first and n1 second. */
function deploy(from: number, to: number): Scenario {
  const nodes = ['n1', 'n2', 'n3', 'n4', 'n5'];
  const starts = nodes.map((node, i) => ({ at: i === 0 ? 0 : 2000, do: 'start' as const, node, ...(from !== 0 && { priority: from }) }));
  const order = ['n2', 'n1', 'n3', 'n4', 'n5'];
  const redeploys = order.map((node, i) => ({ at: 20_000 + i * 4 * T, do: 'redeploy' as const, node, priority: to, downMs: I }));
  return checkScenario({ seed: 5, timing: { intervalMs: I, timeoutMs: T }, steps: [...starts, ...redeploys] });
}

/** How many times the sole leader changed from `from` on (by incarnation). */
function leaderChanges(run: Run, from: number): number {
  let current: string | undefined;
  let changes = 0;
  for (const s of run.history.samples) {
    if (s.leaders.length !== 1) continue;
    if (s.at >= from && current !== undefined && s.leaders[0] !== current) changes++;
    current = s.leaders[0];
  }
  return changes;
}

describe('priorities with pre-emption: a rolling deploy', () => {
  it('onto a higher priority changes the leader once: the first node redeployed takes over when it is ready, and keeps leading', async () => {
    const run = await runScenario(deploy(0, 1_004_002));
    expect(checkRun(run).violations).toEqual([]);
    const r = rollingRun(run)!;
    // The situation: n1 led the converged group, and n2, not the leader, went first.
    expect(r.leader).toBe('n1');
    expect(r.leaderFirst).toBe(false);
    expect(r.successors).toEqual(['n2#2']);
    expect(r.dual).toEqual([]);
    expect(r.longestGap.ms).toBeLessThanOrEqual(I + I / 2);
    // n1 handed over as resign() does (told `resigned`), and no node of priority 0 stood meanwhile.
    const handOver = run.history.updatesOf('n1').find((u) => u.update.type === 'role' && u.update.reason === 'resigned');
    expect(handOver).toBeDefined();
    const stood = run.history.entries.filter((e) => e.kind === 'update' && e.at >= handOver!.at && e.at < handOver!.at + T && e.update.type === 'role' && e.update.role === 'candidate');
    expect(stood.map((e) => (e.kind === 'update' ? e.node : ''))).toEqual(['n2#2']);
  });

  it('without priorities the same deploy changes the leader more than once (what pre-emption is for)', async () => {
    const run = await runScenario(deploy(0, 0));
    expect(checkRun(run).violations).toEqual([]);
    expect(rollingRun(run)).toBeUndefined();
    expect(leaderChanges(run, 20_000)).toBeGreaterThan(1);
  });

  it('holds on drawn rolling deploys: once (twice when the leader goes first), never two leaders, no gap longer than a resignation’s', async () => {
    await fc.assert(
      fc.asyncProperty(rollingScenarioArbitrary(), async (scenario) => {
        const run = await runScenario(scenario, { recordOperations: false });
        const { violations } = checkRun(run);
        expect(rollingRun(run), formatScenario(scenario)).toBeDefined();
        expect(violations, formatScenario(scenario)).toEqual([]);
      }),
      { numRuns: 25, seed: 33 },
    );
  });

  it('is part of the scenario language: checked and printed', () => {
    const text = formatScenario(deploy(0, 7));
    expect(text).toContain('redeploy n2 onto priority 7, down for 1000 ms');
    expect(() => checkScenario({ seed: 1, timing: { intervalMs: I, timeoutMs: T }, steps: [{ at: 0, do: 'redeploy', priority: -1 }] })).toThrow(/priority/);
    expect(() => checkScenario({ seed: 1, timing: { intervalMs: I, timeoutMs: T }, steps: [{ at: 0, do: 'start', node: 'n1', priority: 1.5 }] })).toThrow(/priority/);
  });
});

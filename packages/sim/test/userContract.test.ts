import { describe, expect, it } from 'vitest';
import type { RoleUpdate } from '@roster/election';
import { checkRun, runScenario, type Run, type Scenario } from '../src/index.js';
import { worstPerInterval } from '../src/properties/operationBudget.js';

// What users are told, checked where they look: the role updates a subscriber receives.

/** Every `role` update of `label`, with its time. */
function roles(run: Run, label: string): (RoleUpdate & { at: number })[] {
  return run.history.updatesOf(label).flatMap(({ at, update }) => (update.type === 'role' ? [{ ...update, at }] : []));
}

/** The first time at or after `from` when some node's updates made it leader, and which node. */
function firstReportedLeader(run: Run, from: number): { at: number; node: string } | undefined {
  for (const e of run.history.entries) {
    if (e.kind === 'update' && e.at >= from && e.update.type === 'role' && e.update.role === 'leader') return { at: e.at, node: e.node };
  }
  return undefined;
}

/** Store commands by `node` that compared against a value that was no broadcast and did not swap. */
function claimsThatMetGarbage(run: Run, node: string): number {
  return run.history.operations.filter(
    (op) => op.node === node && op.op === 'compareAndSet' && op.key?.includes('/leader ') === true && /^not swapped, current "(?!\d+ \d+ \d+ \S+ \S+")/.test(op.result ?? ''),
  ).length;
}

describe('what a subscriber is told', () => {
  it('a leader cut off from the store is reported as candidate (store-unavailable) by its lease deadline, and one node is leader again within T + 2I of the store’s return', async () => {
    const I = 100;
    const T = 500;
    const R = T / 2;
    const outage = { at: 3000, forMs: 2000 };
    const run = await runScenario({
      seed: 1,
      timing: { intervalMs: I, timeoutMs: T },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 1000, do: 'start', node: 'n2' },
        { at: 1000, do: 'start', node: 'n3' },
        { at: outage.at, do: 'storeOutage', forMs: outage.forMs },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n1 led when the store went away.
    const before = run.history.samples.filter((s) => s.at <= outage.at).at(-1);
    expect(before?.leaders).toEqual(['n1']);
    // Its users were told within its renew deadline (its last cycle began before the outage).
    const lapse = roles(run, 'n1').find((u) => u.at >= outage.at);
    expect(lapse).toMatchObject({ role: 'candidate', previous: 'leader', reason: 'store-unavailable' });
    expect(lapse!.at).toBeLessThanOrEqual(outage.at + R);
    // Nobody is reported as leader while the store is away.
    expect(firstReportedLeader(run, outage.at)!.at).toBeGreaterThanOrEqual(outage.at + outage.forMs);
    // After it, exactly one node is reported as leader within T + 2I, and stays the only one.
    const back = firstReportedLeader(run, outage.at + outage.forMs);
    expect(back!.at - (outage.at + outage.forMs)).toBeLessThanOrEqual(T + 2 * I);
    const end = run.history.samples.at(-1)!;
    expect(end.leaders).toHaveLength(1);
  });

  it('a leader paused past its lease is reported as candidate (lease-expired) the moment it runs again, before anything else it says', async () => {
    const run = await runScenario({
      seed: 1,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { at: 0, do: 'start', node: 'n2' },
        { at: 10_000, do: 'pause', node: 'n1', forMs: 4000 },
      ],
    });
    expect(checkRun(run).violations).toEqual([]);
    const after = roles(run, 'n1').filter((u) => u.at >= 10_000);
    expect(after.map((u) => `${u.role} ${u.reason}`)).toEqual(['candidate lease-expired', 'leader revalidated']);
    expect(after[1]!.at).toBeGreaterThanOrEqual(14_000);
  });
});

describe('no fault leaves nodes spinning', () => {
  it('a claim over an empty value left at the leader key after a store outage lands at the next try, instead of flipping candidate → follower forever (found by pnpm chaos --seed 4242)', async () => {
    const scenario: Scenario = {
      seed: 0,
      timing: { intervalMs: 1000, timeoutMs: 5000 },
      steps: [
        { at: 0, do: 'start', node: 'n1' },
        { do: 'storeOutage', forMs: 2005, at: 0 },
        { do: 'garbage', key: 'leader 0', value: '', at: 5105 },
      ],
    };
    const run = await runScenario(scenario);
    expect(checkRun(run).violations).toEqual([]);
    // The situation: n1's compare-and-set met the empty value (not the absent key its read saw).
    expect(claimsThatMetGarbage(run, 'n1')).toBeGreaterThan(0);
    expect(roles(run, 'n1').at(-1)).toMatchObject({ role: 'leader' });
    expect(worstPerInterval(run).commands).toBeLessThanOrEqual(30);
  });

  for (const [name, value, repeat] of [
    ['no header', 'GARBAGE x ☃ 99999999999999999999999 zzz', undefined],
    ['an empty value', '', undefined],
    ['a truncated header', '3 0', undefined],
    ['a valid header over a garbage tail', '9 0 9 n9 n9 ☃ zzz', undefined],
    ['a huge value', '1 0 7 n1 n1 ☃ ', 6000],
  ] as const) {
    it(`garbage (${name}) at every nonce under a dead leader delays the election by at most an interval: a new leader within T + 2I, a few log lines`, async () => {
      const I = 100;
      const T = 500;
      const crash = 3000;
      const run = await runScenario({
        seed: 7,
        timing: { intervalMs: I, timeoutMs: T },
        steps: [
          { at: 0, do: 'start', node: 'n1' },
          ...['n2', 'n3', 'n4', 'n5'].map((node) => ({ at: 1000, do: 'start' as const, node })),
          // Under the live leader, then over its last broadcast once it is dead.
          { at: crash - 3 * I, do: 'garbage', key: 'leader *', value, ...(repeat === undefined ? {} : { repeat }) },
          { at: crash, do: 'crash', node: 'n1' },
          { at: crash + I, do: 'garbage', key: 'leader *', value, ...(repeat === undefined ? {} : { repeat }) },
        ],
      });
      expect(checkRun(run).violations).toEqual([]);
      // The situation: nothing but garbage was left at the leader key when the survivors claimed.
      const claims = run.history.claims.filter((c) => c.at >= crash);
      expect(claims.length).toBeGreaterThan(0);
      expect(claims[0]!.at).toBeGreaterThan(crash + I);
      const elected = firstReportedLeader(run, crash);
      expect(elected).toBeDefined();
      expect(elected!.at - crash).toBeLessThanOrEqual(T + 2 * I);
      const { commands, logLines } = worstPerInterval(run);
      expect(logLines).toBeLessThanOrEqual(5);
      // The garbage is logged when a node first finds it, not at every read of it.
      for (const node of ['n2', 'n3', 'n4', 'n5']) {
        expect(run.history.logs.filter((l) => l.node === node && l.message.includes('do not parse')).length).toBeLessThanOrEqual(3);
      }
      expect(commands).toBeLessThanOrEqual(40);
    });
  }
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { costPerMember, runScenario, type CostFigures, type Step } from '../src/index.js';

const timing = { intervalMs: 1000, timeoutMs: 5000 };

/** N members started together, no fault; the cost measured over 50 intervals of steady state. */
async function steadyCost(n: number): Promise<CostFigures> {
  const ids = Array.from({ length: n }, (_, i) => `member-${String(i).padStart(3, '0')}`);
  const steps: Step[] = [...ids.map((node): Step => ({ at: 0, do: 'start', node })), { at: 80_000, do: 'stop', node: ids[0]! }];
  const run = await runScenario({ seed: n, timing, steps }, { recordOperations: false });
  return costPerMember(run.costs, 30_000, 80_000, timing.intervalMs);
}

/**
 * N members, and from 30 s on a visitor joining and another leaving every 2.5 s (the member list
 * changes at every other interval); the cost measured over that stretch.
 */
async function churnCost(n: number): Promise<CostFigures> {
  const ids = Array.from({ length: n }, (_, i) => `member-${String(i).padStart(3, '0')}`);
  const visits = Array.from({ length: 10 }, (_, k): Step[] => [
    { at: 30_000 + 5000 * k, do: 'start', node: `visitor-${k}` },
    { at: 32_500 + 5000 * k, do: 'stop', node: `visitor-${k}` },
  ]).flat();
  const steps: Step[] = [...ids.map((node): Step => ({ at: 0, do: 'start', node })), ...visits, { at: 85_000, do: 'stop', node: ids[0]! }];
  const run = await runScenario({ seed: n, timing, steps }, { recordOperations: false });
  // The members who stay: a visitor is a follower for a few intervals only.
  return costPerMember(run.costs.filter((c) => !c.node.startsWith('visitor-')), 30_000, 80_000, timing.intervalMs);
}

/**
 * N members, the first started first (it leads); it crashes at 30 s. The survivors' cost over the
 * T − I after the crash: every one of them a follower that sees the Version still, none stood yet
 * (the last beat came at most I/2 before the crash).
 */
async function stillCost(n: number): Promise<{ cost: CostFigures; roleChanges: number }> {
  const ids = Array.from({ length: n }, (_, i) => `member-${String(i).padStart(3, '0')}`);
  const crashAt = 30_000;
  const until = crashAt + timing.timeoutMs - timing.intervalMs;
  const steps: Step[] = [{ at: 0, do: 'start', node: ids[0]! }, ...ids.slice(1).map((node): Step => ({ at: 100, do: 'start', node })), { at: crashAt, do: 'crash', node: ids[0]! }, { at: 50_000, do: 'stop', node: ids[1]! }];
  const run = await runScenario({ seed: n, timing, steps }, { recordOperations: false });
  const roleChanges = run.history.entries.filter((e) => e.kind === 'update' && e.node !== ids[0] && e.update.type === 'role' && e.at >= crashAt && e.at < until).length;
  return { cost: costPerMember(run.costs.filter((c) => c.node !== ids[0]), crashAt, until, timing.intervalMs), roleChanges };
}

describe('store cost per member and per interval in steady state', () => {
  it('bytes per follower do not depend on N while members come and go: a list change costs each follower a step, not the list', async () => {
    const small = await churnCost(10);
    const large = await churnCost(60);
    expect(Math.abs(large.followerBytesOut - small.followerBytesOut) / small.followerBytesOut).toBeLessThan(0.2);
    // Two per interval, one step read per list change (20 in 50 intervals), and the rare header scans.
    expect(large.followerCommands).toBeLessThanOrEqual(2 + 20 / 50 + 4 / 25);
  }, 120_000);

  it('a follower costs at most 2 commands per interval (a header read and a PING exchange) plus its rare header scans', async () => {
    const cost = await steadyCost(10);
    expect(cost.followerCommands).toBeGreaterThanOrEqual(2);
    expect(cost.followerCommands).toBeLessThanOrEqual(2 + 4 / 25);
  });

  it('commands and bytes per follower do not depend on N, and the leader costs at most 1 + 10/N commands per member (window, publication, beat, join take)', async () => {
    const base = await steadyCost(5);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(10, 20, 50), async (n) => {
        const cost = await steadyCost(n);
        expect(cost.members).toBe(n);
        expect(Math.abs(cost.followerCommands - base.followerCommands) / base.followerCommands).toBeLessThan(0.2);
        expect(Math.abs(cost.followerBytesOut - base.followerBytesOut) / base.followerBytesOut).toBeLessThan(0.2);
        // One PONG exchange per follower; the window, the publication, the beat and the join takes (10) shared.
        expect(cost.leaderCommandsPerMember).toBeLessThanOrEqual(1 + 10 / n + 0.05);
      }),
      { numRuns: 3, seed: 14, verbose: true },
    );
  }, 120_000);
});

describe('store cost per member and per interval while the leader is gone', () => {
  it('a follower whose Version went still polls every I/2 but scans every nonce only every 1.9I: at most 4 commands per interval until the first stands (every member of the group at once, on the store the failover needs)', async () => {
    const { cost, roleChanges } = await stillCost(20);
    // The situation: every survivor a follower throughout, none stood yet.
    expect(cost.members).toBe(19);
    expect(roleChanges).toBe(0);
    // A PING and a poll per interval until the Version has been still for 1.5I, then a PING, two
    // polls and, every 1.9I, three reads more for the other nonces.
    expect(cost.commands).toBeGreaterThan(2.5);
    expect(cost.commands).toBeLessThanOrEqual(4);
  });
});

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

describe('store cost per member and per interval in steady state', () => {
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

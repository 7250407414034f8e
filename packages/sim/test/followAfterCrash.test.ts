import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Step } from '../src/index.js';

const I = 100;
const T = 500;
const N = 24;
/** The store's round trip in these runs: 1 to 3 ms, as a store on the same network. */
const LATENCY = { minMs: 1, maxMs: 3 };

/**
 * N members started at spread-out times (so their polls have every phase of the interval), the
 * first one leading; it crashes at `crashAt`. Returns when the first survivor reported leading,
 * and when each survivor began to follow that new leader (its `leader` update), in ms from the
 * crash; and whether the crashed node led until then (the situation this spec is about).
 */
async function crashOfTheLeader(seed: number, crashPhase: number): Promise<{ ledUntilCrash: boolean; leaderAt: number; publishedAt: number; followAt: number[]; violations: readonly unknown[] }> {
  const ids = Array.from({ length: N }, (_, i) => `m-${String(i).padStart(2, '0')}`);
  const crashAt = 30 * T + crashPhase;
  const steps: Step[] = [
    { at: 0, do: 'latency', ...LATENCY, forMs: crashAt + 10 * T },
    // The first at once (it leads), the others from I on, at every phase of the interval.
    ...ids.map((node, i): Step => ({ at: i === 0 ? 1 : I + 1 + ((i * 37 + seed * 11) % (5 * I)), do: 'start', node })),
    { at: crashAt, do: 'crash', node: ids[0]! },
    // The run goes on until its last step: 4T after the crash, a member leaves.
    { at: crashAt + 4 * T, do: 'stop', node: ids[N - 1]! },
  ];
  const run = await runScenario({ seed, timing: { intervalMs: I, timeoutMs: T }, steps }, { recordOperations: false });
  const updates = run.history.entries.flatMap((e) => (e.kind === 'update' ? [{ at: e.at, node: e.node, update: e.update }] : []));
  const led = updates.filter((u) => u.update.type === 'role' && u.update.role === 'leader' && u.at < crashAt);
  const ledUntilCrash = led.length > 0 && led.at(-1)!.node === ids[0] && !updates.some((u) => u.node === ids[0] && u.update.type === 'role' && u.update.previous === 'leader' && u.at < crashAt);
  const first = updates.find((u) => u.at >= crashAt && u.update.type === 'role' && u.update.role === 'leader')!;
  const newLeader = first.node;
  // Its first publication with a list: the first `members` update it emitted as leader.
  const published = updates.find((u) => u.at >= first.at && u.node === newLeader && u.update.type === 'leader');
  const followAt = ids.slice(1, N - 1).filter((id) => id !== newLeader).map((id) => {
    const u = updates.find((x) => x.at >= crashAt && x.node === id && x.update.type === 'leader' && x.update.leader?.id === newLeader);
    return u === undefined ? Number.POSITIVE_INFINITY : u.at - crashAt;
  });
  return { ledUntilCrash, leaderAt: first.at - crashAt, publishedAt: (published?.at ?? first.at) - crashAt, followAt, violations: checkRun(run).violations };
}

describe('every member follows a new leader soon after the old one crashed', () => {
  it('within T + 2I of the crash, and within I/2 (and a few round trips) of the new leader: a follower whose Version is still, or whose best leadership is a claim, polls every I/2', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 0, max: I - 1 }), async (seed, crashPhase) => {
        const run = await crashOfTheLeader(seed, crashPhase);
        // The situation: the crashed node led until its crash, and a survivor took over.
        expect(run.ledUntilCrash).toBe(true);
        expect(run.violations).toEqual([]);
        expect(run.leaderAt).toBeLessThanOrEqual(T + 2 * I);
        const last = Math.max(...run.followAt);
        expect(last).toBeLessThanOrEqual(T + 2 * I);
        // Half an interval, plus the poll's header read and list read and a late timer.
        expect(last - run.leaderAt).toBeLessThanOrEqual(I / 2 + 4 * LATENCY.maxMs + 2);
      }),
      { numRuns: 8, seed: 33 },
    );
  }, 120_000);
});

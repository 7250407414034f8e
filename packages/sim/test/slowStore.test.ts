import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Run, type Scenario, type Step } from '../src/index.js';

const I = 100;
const T = 500;
const N = 20;
/** When the store slows down and for how long: every reply 60–120 ms late, all later than τ = I/2. */
const SLOW_FROM = 20 * T;
const SLOW_FOR = 40 * T;

/** `N` members, converged, whose store answers every operation 60–120 ms late for 40T, then recovers. */
function slowStore(): Scenario {
  const ids = Array.from({ length: N }, (_, i) => `m${String(i).padStart(2, '0')}`);
  const steps: Step[] = [
    { at: 0, do: 'start', node: ids[0]! },
    ...ids.slice(1).map((node): Step => ({ at: 2 * T, do: 'start', node })),
    { at: SLOW_FROM, do: 'latency', minMs: 60, maxMs: 120, forMs: SLOW_FOR, mode: 'apply-then-delay' },
  ];
  return { seed: 7, timing: { intervalMs: I, timeoutMs: T }, steps };
}

/** Store commands issued from `from` to `to`, per member per interval. */
function load(run: Run, from: number, to: number): number {
  return run.costs.filter((c) => c.at >= from && c.at < to).length / N / ((to - from) / I);
}

describe('a store slower than the operation timeout', () => {
  // Every read times out: the followers stand (they can read nothing), and a candidate reads the
  // whole window and the era record at each step, 8 commands where a poll is 1. Without back-off
  // (the mutant `no-back-off`) that is 11.8 commands per member per interval against 3.46 healthy,
  // for as long as the store stays slow; backed off (PINGs, polls, candidates' steps) 5.46.
  it('gets at most twice the healthy load per member while it is slow, the healthy load once it recovers, and the group stays one', async () => {
    const run = await runScenario(slowStore(), { recordOperations: false });
    const healthy = load(run, SLOW_FROM - 10 * T, SLOW_FROM);
    // The nodes back off within a few round trips: counted from 2T into the slowdown.
    const slow = load(run, SLOW_FROM + 2 * T, SLOW_FROM + SLOW_FOR);
    const recovered = load(run, SLOW_FROM + SLOW_FOR + 2 * T, run.quietAt + 3 * T + 6 * I);
    const measured = `per member per interval: healthy ${healthy.toFixed(2)}, slow ${slow.toFixed(2)}, recovered ${recovered.toFixed(2)}`;
    expect(slow, measured).toBeGreaterThan(healthy);
    expect(slow, measured).toBeLessThan(2 * healthy);
    expect(recovered, measured).toBeGreaterThan(0.8 * healthy);
    expect(recovered, measured).toBeLessThan(1.2 * healthy);
    expect(checkRun(run).violations).toEqual([]);
  }, 120_000);
});

/** `N` members, converged, whose store serves `opsPerSecond` operations a second for 40T, then all again. */
function overloaded(opsPerSecond: number): Scenario {
  const ids = Array.from({ length: N }, (_, i) => `m${String(i).padStart(2, '0')}`);
  const steps: Step[] = [
    { at: 0, do: 'start', node: ids[0]! },
    ...ids.slice(1).map((node): Step => ({ at: 2 * T, do: 'start', node })),
    { at: SLOW_FROM, do: 'capacity', opsPerSecond, forMs: SLOW_FOR, maxQueueMs: T },
  ];
  return { seed: 7, timing: { intervalMs: I, timeoutMs: T }, steps };
}

describe('a store that serves fewer operations than the group asks of it', () => {
  // Healthy, 20 members ask 3.46 commands per member per interval: 692 a second. Served at 400 or
  // 550 a second, first come first served, operations queue behind ones whose callers already gave
  // up, and once the queue holds T of work the store refuses at once: the nodes ask about twice as
  // much (6.90 and 6.62 commands per member per interval; a refusal is not a slow answer, and Pace
  // does not back off on it), and the group stays one. At 900 a second the queue comes and goes
  // with each interval's burst, under the round trip where nodes back off, and they ask 5.00 (a
  // Version published late looks still: followers poll and scan faster). Limits of the back-off,
  // which reacts to round trips over τ/2 only (docs/scale.md).
  it.each([400, 550, 900])('at %i operations a second: the group stays one, and converges again once the store keeps up', async (opsPerSecond) => {
    const run = await runScenario(overloaded(opsPerSecond), { recordOperations: false });
    const healthy = load(run, SLOW_FROM - 10 * T, SLOW_FROM);
    const slow = load(run, SLOW_FROM + 2 * T, SLOW_FROM + SLOW_FOR);
    const recovered = load(run, SLOW_FROM + SLOW_FOR + 2 * T, run.quietAt + 3 * T + 6 * I);
    const measured = `per member per interval: healthy ${healthy.toFixed(2)}, overloaded ${slow.toFixed(2)}, recovered ${recovered.toFixed(2)}`;
    // The fault reached the nodes: what they ask changed.
    expect(Math.abs(slow - healthy), measured).toBeGreaterThan(0.2 * healthy);
    expect(slow, measured).toBeLessThan(2.5 * healthy);
    expect(recovered, measured).toBeGreaterThan(0.8 * healthy);
    expect(recovered, measured).toBeLessThan(1.2 * healthy);
    expect(checkRun(run).violations).toEqual([]);
  }, 120_000);
});

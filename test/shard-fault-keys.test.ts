import { afterEach, describe, expect, it } from 'vitest';
import { formatRow, measureDisruption, type FaultedKey, type ShardFault } from './support/disruption.js';
import { killAllNodes } from './support/rosterNode.js';

/**
 * The other keys of issue 12, on a real 3-master Redis Cluster and 5 real `roster node` processes
 * at I=100/T=500: the master serving the join key, a follower's id key or the leader's own id key
 * is SIGKILLed or SIGSTOPped. Bounds are the protocol's plus generous slack for a loaded machine.
 */
const SLACK = 3000;
const I = 100;
const T = 500;
const CASES: { key: FaultedKey; fault: ShardFault; what: string }[] = [
  { key: 'join', fault: 'kill', what: "the join key's shard SIGKILLed" },
  { key: 'follower-id', fault: 'stop', what: "a follower's id-key shard SIGSTOPped" },
  { key: 'leader-id', fault: 'kill', what: "the leader's own id-key shard SIGKILLed" },
];

afterEach(async () => {
  await killAllNodes();
});

describe(`a dead or frozen shard under another key, at I=${I}/T=${T}`, () => {
  for (const { key, fault, what } of CASES) {
    it(`${what}: the leader stays (or one handover within T + 2I), a join is admitted, a leader crash fails over, and all still works after the shard returns`, async () => {
      const r = await measureDisruption({ intervalMs: I, timeoutMs: T, fault, key, watchMs: 3 * T });
      console.info(formatRow(r));
      for (const tail of r.exitedStderr) console.info(tail);
      expect(r.leaderlessMs).toBeLessThanOrEqual(T + 2 * I + SLACK);
      expect(r.joinMs).toBeDefined();
      expect(r.joinMs!).toBeLessThanOrEqual(T + 4 * I + SLACK);
      expect(r.failoverMs).toBeDefined();
      expect(r.failoverMs!).toBeLessThanOrEqual(T + 2 * I + SLACK);
      expect(r.joinAfterMs).toBeDefined();
      expect(r.failoverAfterMs).toBeDefined();
      expect(r.failoverAfterMs!).toBeLessThanOrEqual(T + 2 * I + SLACK);
      expect(r.exitedStderr).toEqual([]);
      expect(r.exited).toBe(0);
      expect(Math.max(...r.stderrLines)).toBeLessThanOrEqual(20);
    });
  }
});

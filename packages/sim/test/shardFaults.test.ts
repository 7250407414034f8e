import { describe, expect, it } from 'vitest';
import { checkRun, runScenario, type Run, type Scenario } from '../src/index.js';

/** Virtual ms, within [from, to), during which there was not exactly one leader. */
function leaderlessMs(run: Run, from: number, to: number): number {
  const samples = run.history.samples;
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    const end = Math.min(samples[i + 1]?.at ?? to, to);
    const start = Math.max(s.at, from);
    if (end > start && s.leaders.length !== 1) total += end - start;
  }
  return total;
}

/** The members `label` last announced before `at`. */
function membersAt(run: Run, label: string, at: number): string[] {
  const updates = run.history.updatesOf(label).filter((u) => u.at < at && u.update.type === 'members');
  const last = updates.at(-1)?.update;
  return last?.type === 'members' ? last.members.map((m) => m.id) : [];
}

// A Redis Cluster shard that dies or freezes does not refuse operations on its keys: they hang
// until the caller's deadline, which the caller sees as its own timeout. Before the fix, one hung
// nonce made the whole leader-key read fail: the leader could not publish and fenced itself, and
// followers, seeing nothing, never stood. The group stayed leaderless for as long as the shard.
describe('a hung shard under the leader key (dead or frozen Redis Cluster master)', () => {
  for (const timing of [
    { intervalMs: 100, timeoutMs: 500 },
    { intervalMs: 200, timeoutMs: 1000 },
    { intervalMs: 1000, timeoutMs: 5000 },
  ]) {
    const { intervalMs: I, timeoutMs: T } = timing;
    it(`at I=${I}/T=${T}: the leader keeps leading from the next nonce, a new node is admitted, and a leader crash fails over within T + 2I`, async () => {
      const faultAt = 10 * T;
      const joinAt = faultAt + 3 * T;
      const crashAt = joinAt + 3 * T;
      const healAt = crashAt + 4 * T;
      const scenario: Scenario = {
        seed: 0,
        timing,
        steps: [
          { at: 0, do: 'start', node: 'n1' },
          { at: 10, do: 'start', node: 'n2' },
          { at: 20, do: 'start', node: 'n3' },
          { at: 30, do: 'start', node: 'n4' },
          { at: faultAt, do: 'keyUnavailable', keys: 'leader 0', forMs: healAt - faultAt, hang: true },
          { at: joinAt, do: 'start', node: 'n5' },
          { at: crashAt, do: 'crash', node: 'n1' },
        ],
      };
      const run = await runScenario(scenario);
      expect(checkRun(run).violations).toEqual([]);
      // n1, the first leader, is not disturbed by the fault.
      expect(leaderlessMs(run, faultAt, crashAt)).toBe(0);
      expect(run.history.updatesOf('n1').filter((u) => u.at >= faultAt && u.at < crashAt && u.update.type === 'role')).toEqual([]);
      // The new node is admitted and seen by every node within about T.
      for (const label of ['n1', 'n2', 'n3', 'n4', 'n5']) expect(membersAt(run, label, joinAt + T + 2 * I)).toContain('n5');
      // The crashed leader is replaced within T + 2I, while the shard is still hung.
      expect(leaderlessMs(run, crashAt, healAt)).toBeLessThanOrEqual(T + 2 * I);
    });
  }
});

describe('a hung shard under any other key', () => {
  const timing = { intervalMs: 200, timeoutMs: 1000 };
  const { intervalMs: I, timeoutMs: T } = timing;
  // n1 leads; n2 is a follower; n5 joins during the fault. (The era key is not a simulator KeyRef.)
  for (const keys of ['join 0', 'id/n2 0', 'id/n1 0', 'id/n5 0']) {
    it(`'${keys}' hangs: no leader change, the joiner is admitted within about T, a leader crash fails over within T + 2I`, async () => {
      const faultAt = 10 * T;
      const joinAt = faultAt + 2 * T;
      const crashAt = joinAt + 4 * T;
      const healAt = crashAt + 4 * T;
      const run = await runScenario({
        seed: 0,
        timing,
        steps: [
          { at: 0, do: 'start', node: 'n1' },
          { at: 10, do: 'start', node: 'n2' },
          { at: 20, do: 'start', node: 'n3' },
          { at: faultAt, do: 'keyUnavailable', keys, forMs: healAt - faultAt, hang: true },
          { at: joinAt, do: 'start', node: 'n5' },
          { at: crashAt, do: 'crash', node: 'n1' },
        ],
      });
      expect(checkRun(run).violations).toEqual([]);
      expect(leaderlessMs(run, faultAt, crashAt)).toBe(0);
      for (const label of ['n1', 'n2', 'n3', 'n5']) expect(membersAt(run, label, joinAt + T + 4 * I)).toContain('n5');
      expect(leaderlessMs(run, crashAt, healAt)).toBeLessThanOrEqual(T + 2 * I);
    });
  }
});

/** The ids of the leaders `label` adopted within [from, to). */
function leadersAdopted(run: Run, label: string, from: number, to: number): string[] {
  return run.history
    .updatesOf(label)
    .filter((u) => u.at >= from && u.at < to && u.update.type === 'leader')
    .map((u) => (u.update.type === 'leader' ? (u.update.leader?.id ?? '(none)') : ''));
}

// A shard restarted from an older snapshot comes back with the data it had when it went away: the
// lower nonce of the leader key shows an older Version of the same leadership, or, after a
// failover, the broadcast of an older era. Readers must not be fooled by either.
describe('a shard that comes back with its old data', () => {
  for (const timing of [
    { intervalMs: 100, timeoutMs: 500 },
    { intervalMs: 200, timeoutMs: 1000 },
    { intervalMs: 1000, timeoutMs: 5000 },
  ]) {
    const { intervalMs: I, timeoutMs: T } = timing;
    for (const hang of [false, true]) {
      const how = hang ? 'hanging' : 'refusing';
      it(`at I=${I}/T=${T}, ${how}: the live leader's older Version at the lower nonce changes no leader, and joins still work`, async () => {
        const faultAt = 10 * T;
        const healAt = faultAt + 4 * T;
        const joinAt = healAt + 2 * T;
        const end = joinAt + 4 * T;
        const run = await runScenario({
          seed: 0,
          timing,
          steps: [
            { at: 0, do: 'start', node: 'n1' },
            { at: 10, do: 'start', node: 'n2' },
            { at: 20, do: 'start', node: 'n3' },
            { at: faultAt, do: 'keyRollback', keys: 'leader 0', forMs: healAt - faultAt, hang, flakyMs: 2 * I },
            { at: joinAt, do: 'start', node: 'n4' },
            { at: end, do: 'stop', node: 'n4' },
          ],
        });
        expect(checkRun(run).violations).toEqual([]);
        expect(leaderlessMs(run, faultAt, end)).toBe(0);
        for (const label of ['n1', 'n2', 'n3']) {
          expect(run.history.updatesOf(label).filter((u) => u.at >= faultAt && u.at < end && u.update.type === 'role')).toEqual([]);
          expect(leadersAdopted(run, label, faultAt, end).filter((id) => id !== 'n1')).toEqual([]);
        }
        for (const label of ['n1', 'n2', 'n3', 'n4']) expect(membersAt(run, label, joinAt + T + 4 * I)).toContain('n4');
      });

      it(`at I=${I}/T=${T}, ${how}: after a failover, the dead leader's older-era broadcast coming back is never adopted`, async () => {
        const faultAt = 10 * T;
        const crashAt = faultAt + T;
        const healAt = crashAt + 4 * T;
        const end = healAt + 6 * T;
        const run = await runScenario({
          seed: 0,
          timing,
          steps: [
            { at: 0, do: 'start', node: 'n1' },
            { at: 10, do: 'start', node: 'n2' },
            { at: 20, do: 'start', node: 'n3' },
            { at: faultAt, do: 'keyRollback', keys: 'leader 0', forMs: healAt - faultAt, hang, flakyMs: 2 * I },
            { at: crashAt, do: 'crash', node: 'n1' },
          ],
        });
        expect(checkRun(run).violations).toEqual([]);
        expect(leaderlessMs(run, crashAt, healAt)).toBeLessThanOrEqual(T + 2 * I);
        expect(leaderlessMs(run, healAt, end)).toBe(0);
        for (const label of ['n2', 'n3']) expect(leadersAdopted(run, label, crashAt + T + 2 * I, end)).not.toContain('n1');
      });
    }
  }
});

describe('any other key back with its old data', () => {
  const timing = { intervalMs: 200, timeoutMs: 1000 };
  const { intervalMs: I, timeoutMs: T } = timing;
  // One nonce each, as on a real cluster, where a key's nonces hash to different shards. (With every
  // nonce of n2's id key away, n2 hears no pong, stands, and wins: one handover, within T + 3I.)
  for (const keys of ['join 0', 'id/n2 0', 'id/n1 0']) {
    it(`'${keys}' rolls back: no leader change, a later joiner is admitted within about T, a leader crash fails over within T + 2I`, async () => {
      const faultAt = 10 * T;
      const healAt = faultAt + 4 * T;
      const joinAt = healAt + 2 * T;
      const crashAt = joinAt + 4 * T;
      const run = await runScenario({
        seed: 0,
        timing,
        steps: [
          { at: 0, do: 'start', node: 'n1' },
          { at: 10, do: 'start', node: 'n2' },
          { at: 20, do: 'start', node: 'n3' },
          { at: faultAt, do: 'keyRollback', keys, forMs: healAt - faultAt, flakyMs: 2 * I },
          { at: joinAt, do: 'start', node: 'n5' },
          { at: crashAt, do: 'crash', node: 'n1' },
        ],
      });
      expect(checkRun(run).violations).toEqual([]);
      expect(leaderlessMs(run, faultAt, crashAt)).toBe(0);
      for (const label of ['n1', 'n2', 'n3', 'n5']) expect(membersAt(run, label, joinAt + T + 4 * I)).toContain('n5');
      expect(leaderlessMs(run, crashAt, crashAt + 4 * T)).toBeLessThanOrEqual(T + 2 * I);
    });
  }
});

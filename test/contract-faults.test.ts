import { Namespace } from '@roster/kv-adapter';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * The leadership contract as a user of `roster node --json` sees it, on real processes over a real
 * redis-server: `"role":"leader"` means "may act as leader now" (docs/cli.md). Assertions are on
 * the streams' own timestamps; the slack covers process scheduling on a loaded 2-core machine.
 */
const SLACK_MS = 300;

let redis: RedisTestServer;
let client: Redis;
beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.port, redis.host, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
});
afterAll(async () => {
  await killAllNodes();
  client?.disconnect();
  await redis?.stop();
});
afterEach(async () => {
  await killAllNodes();
});

function freshKey(): string {
  return `contract${Math.random().toString(36).slice(2, 8)}`;
}

interface Group {
  readonly key: string;
  readonly nodes: RosterNodeProcess[];
  start(id: string): RosterNodeProcess;
}

function group(I: number, T: number): Group {
  const key = freshKey();
  const nodes: RosterNodeProcess[] = [];
  return {
    key,
    nodes,
    start(id) {
      const p = startRoster('node', '--store', redis.url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json');
      nodes.push(p);
      return p;
    },
  };
}

const describeAll = (ps: readonly RosterNodeProcess[]): string => ps.map((p) => p.describe()).join('\n\n');

/** The live processes whose last role line says leader. */
const reportedLeaders = (ps: readonly RosterNodeProcess[]): RosterNodeProcess[] => ps.filter((p) => p.alive && p.role === 'leader');

/** True when exactly one live process reports leader and every live one follows it. */
function settled(ps: readonly RosterNodeProcess[], size = ps.filter((p) => p.alive).length): boolean {
  const live = ps.filter((p) => p.alive);
  const leaders = reportedLeaders(live);
  if (live.length !== size || leaders.length !== 1) return false;
  const id = leaders[0]!.events[0]!.id;
  return live.every((p) => p.leader?.id === id && p.members.length === size);
}

/** `role` lines of `p` at or after `from` (ms since the epoch). */
const rolesSince = (p: RosterNodeProcess, from: number) => p.events.filter((e) => e.event === 'role' && e.ts >= from) as { ts: number; role: string; reason: string }[];

const stderrLines = (p: RosterNodeProcess): number => p.stderr.split('\n').filter((l) => l !== '').length;

for (const [I, T] of [
  [100, 500],
  [1000, 5000],
] as const) {
  const R = T / 2;
  describe(`the store killed under a group of ${I === 100 ? 5 : 3} at I = ${I} ms, T = ${T} ms`, () => {
    it(`no process reports leader past its lease deadline (R = ${R} ms), and one does again within T + 2I of the store's return`, { timeout: 60_000 }, async () => {
      const g = group(I, T);
      const ids = I === 100 ? ['a', 'b', 'c', 'd', 'e'] : ['a', 'b', 'c'];
      for (const id of ids) g.start(id);
      await until(() => settled(g.nodes, ids.length), 20 * T, () => describeAll(g.nodes));
      const leader = reportedLeaders(g.nodes)[0]!;

      const killedAt = Date.now();
      await redis.crash();
      // The leader tells of its lapse by its lease deadline (its last cycle began before the kill).
      await until(() => leader.role !== 'leader', 3 * T, () => leader.describe());
      const lapse = rolesSince(leader, killedAt)[0]!;
      expect(lapse, leader.describe()).toMatchObject({ role: 'candidate', reason: 'store-unavailable' });
      expect(lapse.ts - killedAt, leader.describe()).toBeLessThanOrEqual(R + SLACK_MS);
      // While the store is away, nobody is leader.
      await new Promise((resolve) => setTimeout(resolve, T));
      expect(reportedLeaders(g.nodes)).toEqual([]);
      for (const p of g.nodes) expect(rolesSince(p, killedAt).filter((r) => r.role === 'leader'), p.describe()).toEqual([]);

      // Back without its data (no persistence): exactly one leader again, within T + 2I.
      await redis.restart();
      const backAt = Date.now();
      await until(() => settled(g.nodes, ids.length), 10 * T, () => describeAll(g.nodes));
      const first = Math.min(...g.nodes.flatMap((p) => rolesSince(p, backAt).filter((r) => r.role === 'leader').map((r) => r.ts)));
      expect(first - backAt, describeAll(g.nodes)).toBeLessThanOrEqual(T + 2 * I + SLACK_MS);
      expect(reportedLeaders(g.nodes)).toHaveLength(1);
      // A fault is logged once per change of state, not once per operation or interval.
      const lines = g.nodes.map(stderrLines);
      for (const p of g.nodes) expect(stderrLines(p), p.describe()).toBeLessThanOrEqual(30);
      console.log(`store killed (I = ${I}, T = ${T}): lapse told ${lapse.ts - killedAt} ms after the kill (R = ${R}); a leader again ${first - backAt} ms after the store's return (T + 2I = ${T + 2 * I}); stderr lines per process ${Math.min(...lines)}–${Math.max(...lines)}`);
    });
  });
}

describe('garbage at the leader key under a dead leader', () => {
  const I = 100;
  const T = 500;
  const RUNS = 20;
  const GARBAGE = ['GARBAGE x ☃ 99999999999999999999999 zzz', '', '3 0', '9 0 9 n9 n9 ☃ zzz'];

  it(`in ${RUNS} runs, the survivors elect a new leader within T + 2I of the kill, each process writing at most 20 stderr lines a run`, { timeout: 120_000 }, async () => {
    await client.connect().catch(() => undefined);
    const g = group(I, T);
    const ns = new Namespace(g.key, 'test');
    const leaderKeys = [0, 1, 2, 3].map((n) => ns.key(`leader ${n}`));
    let next = 0;
    for (let i = 0; i < 5; i++) g.start(`n${next++}`);
    await until(() => settled(g.nodes, 5), 20 * T, () => describeAll(g.nodes));
    const failovers: number[] = [];
    let mostLines = 0;
    for (let run = 0; run < RUNS; run++) {
      const live = g.nodes.filter((p) => p.alive);
      const stderrBefore = new Map(live.map((p) => [p, stderrLines(p)]));
      const value = GARBAGE[run % GARBAGE.length]!;
      // Broadcast-looking values overwritten with garbage for three intervals, under the live leader…
      const until3I = Date.now() + 3 * I;
      while (Date.now() < until3I) {
        await Promise.all(leaderKeys.map((k) => client.set(k, value)));
        await new Promise((resolve) => setTimeout(resolve, I / 4));
      }
      // …then the leader is killed, and its last broadcast overwritten too.
      const leader = reportedLeaders(live)[0]!;
      const killedAt = Date.now();
      leader.signal('SIGKILL');
      await leader.exited;
      await Promise.all(leaderKeys.map((k) => client.set(k, value)));
      const survivors = live.filter((p) => p !== leader);
      await until(() => reportedLeaders(survivors).length === 1, 10 * T, () => describeAll(survivors));
      const elected = Math.min(...survivors.flatMap((p) => rolesSince(p, killedAt).filter((r) => r.role === 'leader').map((r) => r.ts)));
      failovers.push(elected - killedAt);
      expect(elected - killedAt, `run ${run}, garbage ${JSON.stringify(value)}\n${describeAll(survivors)}`).toBeLessThanOrEqual(T + 2 * I + SLACK_MS);
      const lines = survivors.map((p) => stderrLines(p) - stderrBefore.get(p)!);
      for (const p of survivors) expect(stderrLines(p) - stderrBefore.get(p)!, p.describe()).toBeLessThanOrEqual(20);
      mostLines = Math.max(mostLines, ...lines);
      // The situation: the survivors read the garbage (each logs it once, when it appears).
      expect(survivors.some((p) => p.stderr.includes('do not parse')), describeAll(survivors)).toBe(true);
      // A fresh member takes the dead one's place; the group settles before the next run.
      g.start(`n${next++}`);
      await until(() => settled(g.nodes, 5), 20 * T, () => describeAll(g.nodes.filter((p) => p.alive)));
    }
    console.log(`garbage under a dead leader: failover ${Math.min(...failovers)}–${Math.max(...failovers)} ms over ${RUNS} runs (T + 2I = ${T + 2 * I} ms); at most ${mostLines} stderr lines by one process in a run`);
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalEtcd } from '@roster/testing';
import { killAllNodes, runRoster, until, type RosterNodeProcess } from './support/rosterNode.js';
import { killAll as killClusterTests, startClusterTest } from './support/clusterTest.js';
import { ElectionGroup, roles } from './support/electionScenario.js';

/**
 * Roster on a real 3-member etcd (Debian's etcd-server, through EtcdKV and etcd's JSON gateway):
 * five `roster node --json` processes at I = 100 ms, T = 500 ms elect one leader, admit a joiner,
 * fail over, hand over on SIGTERM; then etcd's own faults: its raft leader killed, its quorum
 * lost and restored. Bounds are the protocol's plus slack for a loaded 2-core machine; the figures
 * are printed.
 */
const ETCD = process.env.ROSTER_ETCD_BINARY ?? '/usr/bin/etcd';
const I = 100;
const T = 500;
const R = T / 2;
const SLACK = 1000;

let etcd: LocalEtcd;
let groups = 0;
beforeAll(async () => {
  etcd = await LocalEtcd.start({ binary: ETCD, members: 3 });
});
afterEach(async () => {
  await killAllNodes();
  await killClusterTests();
});
afterAll(async () => {
  await killAllNodes();
  await killClusterTests();
  await etcd?.stop();
});

/** A group of its own, on a key prefix of its own. */
const newGroup = (): ElectionGroup => new ElectionGroup({ url: etcd.url(`stores-${++groups}`), group: 'etcd', intervalMs: I, timeoutMs: T, slackMs: SLACK });

const stderrLines = (p: RosterNodeProcess): number => p.stderr.split('\n').filter((l) => l !== '').length;

describe('roster node on a 3-member etcd', () => {
  it('five processes elect one leader, admit a joiner, fail over within T + 2I of a SIGKILL, and hand over on SIGTERM', { timeout: 60_000 }, async () => {
    const g = newGroup();
    for (const id of ['a', 'b', 'c', 'd', 'e']) g.start(id);
    await g.waitSettled();
    const join = await g.join('f');

    const failover = await g.failOverAfterKill();

    const leaving = g.leaders()[0]!;
    const termAt = Date.now();
    leaving.signal('SIGTERM');
    expect((await leaving.exited).code).toBe(0);
    await until(() => g.leaders().length === 1, 10 * T, () => g.describe());
    const handOver = g.firstLeaderSince(termAt)! - termAt;
    expect(handOver, g.describe()).toBeLessThanOrEqual(T + SLACK);
    await g.waitSettled();

    // resign() (SIGUSR2): another leads at once, and the resigned process stays, following it.
    const resign = await g.handOverOnResign();
    expect(g.doubleLeaderMs(), g.describe()).toBe(0);
    console.info(`etcd, 5 processes at I=${I}/T=${T}: join seen by all ${join} ms, failover after SIGKILL ${failover} ms (T + 2I = ${T + 2 * I}), hand-over on SIGTERM ${handOver} ms, on resign (SIGUSR2) ${resign} ms`);
  });

  it("etcd's raft leader killed: the group keeps one leader or hands over once within T + 2I of etcd's return, and a join works", { timeout: 60_000 }, async () => {
    const g = newGroup();
    for (const id of ['a', 'b', 'c', 'd', 'e']) g.start(id);
    await g.waitSettled();
    const before = g.leaders()[0]!;
    const member = (await etcd.leader())!;
    const faultAt = Date.now();
    await etcd.kill(member);
    await etcd.waitForLeader();
    const backAt = Date.now();
    await g.waitSettled(10 * T);
    const lapse = roles(before).find((r) => r.ts >= faultAt && r.role !== 'leader');
    const again = lapse === undefined ? undefined : g.firstLeaderSince(lapse.ts);
    const leaderAgain = again === undefined ? 0 : Math.max(0, again - backAt);
    expect(leaderAgain, g.describe()).toBeLessThanOrEqual(T + 2 * I + SLACK);
    if (lapse) expect(lapse.ts - faultAt, before.describe()).toBeLessThanOrEqual(R + SLACK);
    const join = await g.join('f');
    expect(g.doubleLeaderMs(), g.describe()).toBe(0);
    await etcd.restart(member);
    console.info(
      `etcd raft leader killed: etcd had a leader again after ${backAt - faultAt} ms; Roster leader ${lapse ? `lapsed ${lapse.ts - faultAt} ms after the kill, a leader again ${leaderAgain} ms after etcd's return` : 'kept'}; join ${join} ms`,
    );
  });

  it('quorum lost (2 of 3 killed) and restored: the leader stops reporting leader by its lease deadline, nobody leads meanwhile, one leads within T + 2I of the return', { timeout: 60_000 }, async () => {
    const g = newGroup();
    for (const id of ['a', 'b', 'c', 'd', 'e']) g.start(id);
    await g.waitSettled();
    const leader = g.leaders()[0]!;
    const [, b, c] = etcd.members;
    const faultAt = Date.now();
    await Promise.all([etcd.kill(b!), etcd.kill(c!)]);
    await until(() => leader.role !== 'leader', 3 * T + SLACK, () => leader.describe());
    const lapse = roles(leader).find((r) => r.ts >= faultAt && r.role !== 'leader')!;
    expect(lapse.ts - faultAt, leader.describe()).toBeLessThanOrEqual(R + SLACK);
    await new Promise((resolve) => setTimeout(resolve, 2 * T));
    expect(g.leaders()).toEqual([]);

    await Promise.all([etcd.restart(b!), etcd.restart(c!)]);
    await etcd.waitForLeader();
    const backAt = Date.now();
    await g.waitSettled(10 * T);
    const leaderAgain = Math.max(0, g.firstLeaderSince(lapse.ts)! - backAt);
    expect(leaderAgain, g.describe()).toBeLessThanOrEqual(T + 2 * I + SLACK);
    const join = await g.join('f');
    expect(g.doubleLeaderMs(), g.describe()).toBe(0);
    // A fault is logged once per change of state, not once per operation or interval.
    for (const p of g.nodes) expect(stderrLines(p), p.describe()).toBeLessThanOrEqual(30);
    console.info(`etcd quorum lost: the lapse was reported ${lapse.ts - faultAt} ms after the kill (R = ${R}); a leader again ${leaderAgain} ms after etcd's return (T + 2I = ${T + 2 * I}); join ${join} ms; stderr lines per process ≤ ${Math.max(...g.nodes.map(stderrLines))}`);
  });

  it("cluster-test -r etcd://… reproduces the libcluster example: bases 0, 2, 3 of 7, then 0, 2 of 6", { timeout: 60_000 }, async () => {
    const url = etcd.url(`cluster-test-${++groups}`);
    const timing = ['--interval', '200', '--timeout', '1000'];
    const start = (id: string, n: number) => startClusterTest('-k', 'ct', '-i', id, '-n', String(n), '-r', url, ...timing);
    const node1 = start('node1', 2);
    await node1.waitForLine('cluster-test: cluster joined; sleeping until terminated', 20_000);
    const node2 = start('node2', 1);
    const node3 = start('node3', 4);
    await Promise.all([node1, node2, node3].map((p) => p.waitFor(() => p.last()?.total === 7, 20_000, 'total 7')));
    expect([node1.last(), node2.last(), node3.last()]).toEqual([
      { index: 0, threads: 2, total: 7 },
      { index: 2, threads: 1, total: 7 },
      { index: 3, threads: 4, total: 7 },
    ]);
    node2.signal('SIGKILL');
    await Promise.all([node1, node3].map((p) => p.waitFor(() => p.last()?.total === 6, 20_000, 'total 6')));
    expect([node1.last(), node3.last()]).toEqual([
      { index: 0, threads: 2, total: 6 },
      { index: 2, threads: 4, total: 6 },
    ]);
    node3.signal('SIGINT');
    expect(await node3.exited).toBe(0);
    await node1.waitFor(() => node1.last()?.total === 2, 10_000, 'total 2');
  });

  it('roster primary refuses etcd in one line: it needs the store clock that etcd does not have', async () => {
    const { exit, stderr } = await runRoster(['primary', 'run', '--store', etcd.url('primary'), '--group', 'p', '--env', 'test', '--type', 'billing']);
    expect(exit.code).toBe(2);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^roster primary run: the store cannot hold a heartbeat table: .*EtcdKV does not support a clock of its own \(time\)/);
  });
});

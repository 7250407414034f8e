import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LocalEtcd } from '@roster/testing';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';
import { killAll as killClusterTests, startClusterTest } from './support/clusterTest.js';

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

/** The processes of one group, with what the test did to them. */
class Group {
  readonly nodes: RosterNodeProcess[] = [];
  /** When each process was SIGKILLed: its last `leader` line holds until then. */
  readonly killedAt = new Map<RosterNodeProcess, number>();
  readonly url = etcd.url(`stores-${++groups}`);

  start(id: string): RosterNodeProcess {
    const p = startRoster('node', '--json', '--store', this.url, '--group', 'etcd', '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T));
    this.nodes.push(p);
    return p;
  }

  get live(): RosterNodeProcess[] {
    return this.nodes.filter((p) => p.alive && !this.killedAt.has(p));
  }

  leaders(): RosterNodeProcess[] {
    return this.live.filter((p) => p.role === 'leader');
  }

  /** One live process reports leader and every live one follows it and lists them all. */
  settled(): boolean {
    const live = this.live;
    const leaders = this.leaders();
    if (leaders.length !== 1) return false;
    const id = leaders[0]!.events[0]!.id;
    return live.every((p) => p.leader?.id === id && p.members.length === live.length);
  }

  async waitSettled(boundMs = 20 * T): Promise<number> {
    return until(() => this.settled(), boundMs, () => this.describe());
  }

  kill(p: RosterNodeProcess): number {
    const at = Date.now();
    this.killedAt.set(p, at);
    p.signal('SIGKILL');
    return at;
  }

  /** The first `role: leader` line of any process at or after `from`, in ms since the epoch. */
  firstLeaderSince(from: number): number | undefined {
    const ts = this.nodes.flatMap((p) => roles(p).filter((r) => r.role === 'leader' && r.ts >= from).map((r) => r.ts));
    return ts.length === 0 ? undefined : Math.min(...ts);
  }

  /** The longest time two processes both reported `leader` (0 when never), from every stream's lines. */
  doubleLeaderMs(): number {
    const spans = this.nodes.flatMap((p, owner) => leaderSpans(p, this.killedAt.get(p)).map(([from, to]) => ({ owner, from, to })));
    let worst = 0;
    for (const a of spans) for (const b of spans) if (a.owner < b.owner) worst = Math.max(worst, Math.min(a.to, b.to) - Math.max(a.from, b.from));
    return worst;
  }

  /** Starts `id` and resolves with the time from its first line until every live process lists it. */
  async join(id: string): Promise<number> {
    const p = this.start(id);
    await until(() => p.events.length > 0, 10_000, () => p.describe());
    const from = p.events[0]!.ts;
    await until(() => this.leaders().length === 1 && this.live.every((n) => n.members.includes(id)), 20 * T, () => this.describe());
    return Date.now() - from;
  }

  describe(): string {
    return this.nodes.map((p) => p.describe()).join('\n\n');
  }
}

const stderrLines = (p: RosterNodeProcess): number => p.stderr.split('\n').filter((l) => l !== '').length;

type RoleLine = { ts: number; role: string; reason: string };
const roles = (p: RosterNodeProcess): RoleLine[] => p.events.filter((e) => e.event === 'role') as unknown as RoleLine[];

/** The spans during which `p` reported `leader`: from its leader line to its next role line, its kill, its exit or now. */
function leaderSpans(p: RosterNodeProcess, killedAt: number | undefined): [number, number][] {
  const spans: [number, number][] = [];
  const lines = p.events.filter((e) => e.event === 'role' || e.event === 'stopped') as unknown as { ts: number; event: string; role?: string }[];
  for (const [i, line] of lines.entries()) {
    if (line.event !== 'role' || line.role !== 'leader') continue;
    const end = lines[i + 1]?.ts ?? killedAt ?? (p.alive ? Date.now() : Date.now());
    spans.push([line.ts, end]);
  }
  return spans;
}

describe('roster node on a 3-member etcd', () => {
  it('five processes elect one leader, admit a joiner, fail over within T + 2I of a SIGKILL, and hand over on SIGTERM', { timeout: 60_000 }, async () => {
    const g = new Group();
    for (const id of ['a', 'b', 'c', 'd', 'e']) g.start(id);
    await g.waitSettled();
    const join = await g.join('f');

    const old = g.leaders()[0]!;
    const killedAt = g.kill(old);
    await until(() => g.leaders().length === 1, 10 * T, () => g.describe());
    const failover = g.firstLeaderSince(killedAt)! - killedAt;
    expect(failover, g.describe()).toBeLessThanOrEqual(T + 2 * I + SLACK);
    await g.waitSettled();

    const leaving = g.leaders()[0]!;
    const termAt = Date.now();
    leaving.signal('SIGTERM');
    expect((await leaving.exited).code).toBe(0);
    await until(() => g.leaders().length === 1, 10 * T, () => g.describe());
    const handOver = g.firstLeaderSince(termAt)! - termAt;
    expect(handOver, g.describe()).toBeLessThanOrEqual(T + SLACK);
    await g.waitSettled();

    // resign() (SIGUSR2): another leads at once, and the resigned process stays, following it.
    const resigning = g.leaders()[0]!;
    const resignAt = Date.now();
    resigning.signal('SIGUSR2');
    await until(() => g.leaders().length === 1 && g.leaders()[0] !== resigning, 10 * T, () => g.describe());
    const resign = g.firstLeaderSince(resignAt)! - resignAt;
    expect(resign, g.describe()).toBeLessThanOrEqual(T + SLACK);
    expect(roles(resigning).some((r) => r.ts >= resignAt && r.role === 'follower' && r.reason === 'resigned'), g.describe()).toBe(true);
    await g.waitSettled();
    expect(resigning.alive).toBe(true);
    expect(g.doubleLeaderMs(), g.describe()).toBe(0);
    console.info(`etcd, 5 processes at I=${I}/T=${T}: join seen by all ${join} ms, failover after SIGKILL ${failover} ms (T + 2I = ${T + 2 * I}), hand-over on SIGTERM ${handOver} ms, on resign (SIGUSR2) ${resign} ms`);
  });

  it("etcd's raft leader killed: the group keeps one leader or hands over once within T + 2I of etcd's return, and a join works", { timeout: 60_000 }, async () => {
    const g = new Group();
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
    const g = new Group();
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

import type { PrimaryEvent } from '@roster/cli';
import { LocalNats } from '@roster/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll as killClusterTests, startClusterTest } from './support/clusterTest.js';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * Roster on a real nats-server with JetStream (Debian's nats-server 2.9, through NatsKV and the
 * official v3 clients): five `roster node --json` processes at I = 100 ms, T = 500 ms elect one
 * leader, see a join and a leave, fail over after a SIGKILL of the leader, hand over on resign;
 * `roster primary` runs on the JetStream clock, and `cluster-test` shares threads. Bounds are the
 * protocol's plus slack for a loaded 2-core machine; the figures are printed.
 */
/** A nats-server of one's own, or LocalNats' default (Debian's /usr/sbin/nats-server). */
const NATS = process.env.ROSTER_NATS_BINARY;
const I = 100;
const T = 500;
const SLACK = 1000;

let nats: LocalNats;
let buckets = 0;
beforeAll(async () => {
  nats = await LocalNats.start({ ...(NATS && { binary: NATS }) });
});
afterEach(async () => {
  await killAllNodes();
  await killClusterTests();
});
afterAll(async () => {
  await killAllNodes();
  await killClusterTests();
  await nats?.stop();
});

type RoleLine = { ts: number; role: string; reason: string };
const roles = (p: RosterNodeProcess): RoleLine[] => p.events.filter((e) => e.event === 'role') as unknown as RoleLine[];

/** The processes of one group (a bucket of its own), with what the test did to them. */
class Group {
  readonly nodes: RosterNodeProcess[] = [];
  readonly gone = new Set<RosterNodeProcess>();
  readonly url = nats.url(`stores-${++buckets}`);

  start(id: string): RosterNodeProcess {
    const p = startRoster('node', '--json', '--store', this.url, '--group', 'nats', '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T));
    this.nodes.push(p);
    return p;
  }

  get live(): RosterNodeProcess[] {
    return this.nodes.filter((p) => p.alive && !this.gone.has(p));
  }

  leaders(): RosterNodeProcess[] {
    return this.live.filter((p) => p.role === 'leader');
  }

  /** One live process reports leader and every live one follows it and lists them all. */
  settled(): boolean {
    const leaders = this.leaders();
    if (leaders.length !== 1) return false;
    const id = leaders[0]!.events[0]!.id;
    return this.live.every((p) => p.leader?.id === id && p.members.length === this.live.length);
  }

  waitSettled(boundMs = 20 * T): Promise<number> {
    return until(() => this.settled(), boundMs, () => this.describe());
  }

  /** The first `role: leader` line of any process at or after `from`, in ms since the epoch. */
  firstLeaderSince(from: number): number | undefined {
    const ts = this.nodes.flatMap((p) => roles(p).filter((r) => r.role === 'leader' && r.ts >= from).map((r) => r.ts));
    return ts.length === 0 ? undefined : Math.min(...ts);
  }

  describe(): string {
    return this.nodes.map((p) => p.describe()).join('\n\n');
  }
}

describe('roster node on nats-server (JetStream key-value)', () => {
  it('five processes elect one leader, see a join and a leave, fail over within T + 2I of a SIGKILL, and hand over on resign', { timeout: 30_000 }, async () => {
    const g = new Group();
    for (const id of ['a', 'b', 'c', 'd', 'e']) g.start(id);
    const elected = await g.waitSettled();

    // A join: every live process lists the newcomer.
    const f = g.start('f');
    await until(() => f.events.length > 0, 10_000, () => f.describe());
    const joinFrom = f.events[0]!.ts;
    await until(() => g.settled() && g.live.every((p) => p.members.includes('f')), 20 * T, () => g.describe());
    const join = Date.now() - joinFrom;

    // A leave: a follower stopped with SIGTERM leaves the members of every other.
    const follower = g.live.find((p) => p.role !== 'leader' && p !== f)!;
    const leftId = follower.events[0]!.id;
    follower.signal('SIGTERM');
    expect((await follower.exited).code).toBe(0);
    g.gone.add(follower);
    const leaveAt = Date.now();
    await until(() => g.settled() && g.live.every((p) => !p.members.includes(leftId)), 20 * T, () => g.describe());
    const leave = Date.now() - leaveAt;

    // The leader SIGKILLed: another leads within T + 2I.
    const old = g.leaders()[0]!;
    const killedAt = Date.now();
    g.gone.add(old);
    old.signal('SIGKILL');
    await until(() => g.leaders().length === 1, 10 * T, () => g.describe());
    const failover = g.firstLeaderSince(killedAt)! - killedAt;
    expect(failover, g.describe()).toBeLessThanOrEqual(T + 2 * I + SLACK);
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
    console.info(`nats, 5 processes at I=${I}/T=${T}: elected and settled ${Math.round(elected)} ms, join seen by all ${join} ms, leave ${leave} ms, failover after SIGKILL ${failover} ms (T + 2I = ${T + 2 * I}), hand-over on resign ${resign} ms`);
  });

  it('roster primary: a contender acts as primary on the JetStream clock, and `primary get` reads it', { timeout: 20_000 }, async () => {
    const url = nats.url(`primary-${++buckets}`);
    const p = startRoster('primary', 'run', '--store', url, '--group', 'natsprimary', '--env', 'test', '--type', 'db', '--id', 'p1', '--endpoint', 'p1.local:8080', '--interval', String(I), '--timeout', '1200', '--json');
    const events = (): PrimaryEvent[] => p.events as unknown as PrimaryEvent[];
    await until(() => events().some((e) => e.event === 'acting'), 10_000, () => p.describe());
    const acting = events().find((e): e is Extract<PrimaryEvent, { event: 'acting' }> => e.event === 'acting')!;
    // The JetStream timestamps are this machine's clock here: the claim is recent.
    expect(Math.abs(Date.now() - acting.claimedAt)).toBeLessThan(10_000);
    const got = await runRoster(['primary', 'get', '--store', url, '--group', 'natsprimary', '--env', 'test', '--type', 'db', '--timeout', '1200', '--json']);
    expect(got.exit.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ primary: 'p1', endpoint: 'p1.local:8080' });
    p.signal('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });

  it('cluster-test -r nats://…: two instances of 3 and 2 threads share a total of 5; the one left has 3 of 3', { timeout: 20_000 }, async () => {
    const url = nats.url(`cluster-test-${++buckets}`);
    const args = (id: string, threads: number): string[] => ['-r', url, '-k', 'natsclustertest', '-i', id, '-n', String(threads), '--interval', String(I)];
    const a = startClusterTest(...args('a', 3));
    const b = startClusterTest(...args('b', 2));
    await until(() => [a.last(), b.last()].every((x) => x?.total === 5), 10_000, () => `${a.stdout}\n${a.stderr}\n${b.stdout}\n${b.stderr}`);
    expect([[0, 3], [2, 0]]).toContainEqual([a.last()!.index, b.last()!.index]);
    b.signal('SIGTERM');
    expect(await b.exited).toBe(0);
    await until(() => a.last()?.total === 3, 10_000, () => a.stdout);
    expect(a.last()).toEqual({ index: 0, threads: 3, total: 3 });
  });
});

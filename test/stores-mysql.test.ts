import type { PrimaryEvent } from '@roster/cli';
import { connectStore, StoreAccessError } from '@roster/kv-adapter';
import { LocalMariaDB } from '@roster/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import { killAll as killAllClusterTests, startClusterTest } from './support/clusterTest.js';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * `roster node --json` processes on a real MariaDB (`--store mysql://…`), at I = 100 ms and
 * T = 500 ms: election, failover after SIGKILL of the leader, a join, a leave, a resign, and the
 * store SIGKILLed and restarted under the group; then `roster primary` (on the server's clock) and
 * `cluster-test`. The figures are printed at the end; the bounds asserted are generous (the
 * machine is shared), the protocol's are in the figures.
 */
const I = 100;
const T = 500;
const WAIT = 15_000;
/** How long the store stays down in the restart fault: longer than T, so every node sees it gone. */
const DOWN_MS = 1000;
const KEY = 'mystores';

let server: LocalMariaDB;
/** Every node of the group, in start order (dead ones included). */
const nodes: RosterNodeProcess[] = [];
const figures: string[] = [];
let ids = 0;

beforeAll(async () => {
  server = await LocalMariaDB.start();
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await server?.destroy();
  if (figures.length > 0) console.log(`MariaDB figures (I = ${I} ms, T = ${T} ms):\n  ${figures.join('\n  ')}`);
});
afterEach(() => {
  expect(twoLeadersAtOnce(), `two processes reported leader at once:\n${describeAll()}`).toEqual([]);
});

function idOf(p: RosterNodeProcess): string {
  return p.events[0]?.id ?? '?';
}

function startNode(): RosterNodeProcess {
  const id = `n${++ids}`;
  const p = startRoster('node', '--store', server.url, '--group', KEY, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json');
  nodes.push(p);
  return p;
}

const alive = (): RosterNodeProcess[] => nodes.filter((p) => p.alive);
const describeAll = (): string => nodes.map((p) => `${p.alive ? 'alive' : `exited ${p.child.exitCode ?? p.child.signalCode}`}: ${p.describe()}`).join('\n');

/** The live nodes follow one leader, which is one of them and says so, and each sees every live node as a member. */
function agreed(): boolean {
  const group = alive();
  const leader = group[0]?.leader;
  if (!leader) return false;
  const want = group.map(idOf).sort().join(',');
  const self = group.find((p) => idOf(p) === leader.id);
  return self?.role === 'leader' && group.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token && p.members.join(',') === want);
}

/** The live nodes follow one leader, which is one of them and says so (member lists aside). */
function oneLeader(): boolean {
  const group = alive();
  const leader = group[0]?.leader;
  if (!leader) return false;
  const self = group.find((p) => idOf(p) === leader.id);
  return self?.role === 'leader' && group.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token);
}

function currentLeader(): RosterNodeProcess {
  const leader = alive()[0]!.leader!;
  return alive().find((p) => idOf(p) === leader.id)!;
}

/** The [from, to) intervals (event time) in which `p` reported `leader`. */
function leaderIntervals(p: RosterNodeProcess): [number, number][] {
  const out: [number, number][] = [];
  let since: number | undefined;
  for (const e of p.events) {
    if (e.event !== 'role') continue;
    if (e.role === 'leader' && since === undefined) since = e.ts;
    else if (e.role !== 'leader' && since !== undefined) {
      out.push([since, e.ts]);
      since = undefined;
    }
  }
  if (since !== undefined) out.push([since, Number.POSITIVE_INFINITY]);
  return out;
}

/** Overlaps of two processes' `leader` intervals (a process SIGKILLed while leader ends at its kill). */
function twoLeadersAtOnce(): string[] {
  const spans = nodes.flatMap((p) =>
    leaderIntervals(p).map(([from, to]) => ({ id: idOf(p), from, to: Math.min(to, killedAt.get(p) ?? Number.POSITIVE_INFINITY) })),
  );
  const overlaps: string[] = [];
  for (const a of spans) for (const b of spans) if (a.id < b.id && a.from < b.to && b.from < a.to) overlaps.push(`${a.id} and ${b.id}`);
  return overlaps;
}
const killedAt = new Map<RosterNodeProcess, number>();

/** Starts one node and resolves to the ms until every live node lists it. */
async function join(): Promise<number> {
  const p = startNode();
  const started = Date.now();
  await until(() => p.events.length > 0 && agreed(), WAIT, describeAll);
  return Date.now() - started;
}

/** When (event time) the last of `group` reported a leader with a token above `token`. */
function seenBy(group: readonly RosterNodeProcess[], token: bigint): number {
  return Math.max(...group.map((p) => p.events.find((e) => e.event === 'leader' && e.token !== null && BigInt(e.token) > token)?.ts ?? Number.NaN));
}

/** The distinct (leader, token) pairs the live nodes reported after `since`. */
function leadersSince(since: number): Set<string> {
  const seen = new Set<string>();
  for (const p of alive()) for (const e of p.events) if (e.event === 'leader' && e.ts >= since && e.leader !== null) seen.add(`${e.leader}@${e.token}`);
  return seen;
}

/**
 * A store fault on the agreed group: `fault()` runs, `recover()` brings the store back; measures
 * when the leader stopped reporting `leader` (if it did), and when the group agreed again after the
 * store's return; checks one leader or one hand-over, and that a join works after.
 */
async function storeFault(name: string, fault: () => Promise<void>, recover: () => Promise<void>): Promise<void> {
  await until(agreed, WAIT, describeAll);
  const leader = currentLeader();
  const before = leader.leader!;
  const faultAt = Date.now();
  await fault();
  await recover();
  const returnedAt = Date.now();
  await until(oneLeader, WAIT, describeAll);
  const leaderMs = Date.now() - returnedAt;
  await until(agreed, WAIT, describeAll);
  const againMs = Date.now() - returnedAt;
  const lapse = leader.events.find((e) => e.event === 'role' && e.ts >= faultAt && e.previous === 'leader');
  const lapseMs = lapse === undefined ? undefined : lapse.ts - faultAt;
  const handovers = [...leadersSince(faultAt)].filter((l) => l !== `${before.id}@${before.token}`);
  figures.push(
    `${name}: lapse reported ${lapseMs === undefined ? 'never (kept leading)' : `${lapseMs} ms`} after the fault; one leader followed by all ${leaderMs} ms after the store's return, every list complete after ${againMs} ms; ${handovers.length} new leader(s)`,
  );
  expect(handovers.length, describeAll()).toBeLessThanOrEqual(1);
  expect(leaderMs).toBeLessThan(3 * (T + 2 * I));
  // A leader that cannot reach the store stops reporting `leader` before another can be elected (T).
  if (lapseMs !== undefined) expect(lapseMs).toBeLessThan(T + 300);
  }

describe('roster node --store mysql:// (5 processes on MariaDB, I = 100 ms, T = 500 ms)', () => {
  it('five nodes elect one leader and all see the five members', async () => {
    for (let i = 0; i < 5; i++) startNode();
    const ms = await until(agreed, WAIT, describeAll);
    figures.push(`5 nodes agreed ${ms} ms after the last spawn`);
    expect(alive().filter((p) => p.role === 'leader')).toHaveLength(1);
  });

  it('SIGKILL of the leader: the others fail over within T + 2I (generous bound here), and a join is seen by all', async () => {
    const victim = currentLeader();
    const old = victim.leader!;
    const killed = Date.now();
    victim.signal('SIGKILL');
    killedAt.set(victim, killed);
    await victim.exited;
    await until(() => alive().every((p) => p.leader != null && p.leader.id !== old.id && p.leader.token > old.token && p.leader.id === alive()[0]!.leader?.id), WAIT, describeAll);
    const failoverMs = seenBy(alive(), old.token) - killed;
    figures.push(`failover after SIGKILL of the leader: ${failoverMs} ms (T + 2I = ${T + 2 * I} ms)`);
    expect(failoverMs).toBeLessThan(3 * (T + 2 * I));
    await until(agreed, WAIT, describeAll);
    figures.push(`join seen by all: ${await join()} ms`);
  });

  it('SIGUSR2 makes the leader resign: another leads at once, and the resigned node stays a member', async () => {
    await until(agreed, WAIT, describeAll);
    const leader = currentLeader();
    const old = leader.leader!;
    const sent = Date.now();
    leader.signal('SIGUSR2');
    await until(() => alive().every((p) => p.leader != null && p.leader.id !== old.id && p.leader.token > old.token && p.leader.id === alive()[0]!.leader?.id), WAIT, describeAll);
    const handOverMs = seenBy(alive().filter((p) => p !== leader), old.token) - sent;
    figures.push(`hand-over on resign (SIGUSR2): ${handOverMs} ms`);
    expect(handOverMs).toBeLessThan(3 * (T + 2 * I));
    expect(leader.events.some((e) => e.event === 'role' && e.ts >= sent && e.role === 'follower' && e.reason === 'resigned'), describeAll()).toBe(true);
    await until(agreed, WAIT, describeAll);
    expect(alive()).toContain(leader);
  });

  it('a follower that stops (SIGTERM) leaves: every other node drops it from the members', async () => {
    await until(agreed, WAIT, describeAll);
    const follower = alive().find((p) => p.role !== 'leader')!;
    const sent = Date.now();
    follower.signal('SIGTERM');
    expect(await follower.exited).toEqual({ code: 0, signal: null });
    await until(agreed, WAIT, describeAll);
    figures.push(`leave (SIGTERM of a follower) seen by all: ${Date.now() - sent} ms`);
    expect(alive().every((p) => !p.members.includes(idOf(follower)))).toBe(true);
  });

  it('MariaDB SIGKILLed and restarted under the group: one leader again, lists complete', async () => {
    await storeFault(
      'MariaDB SIGKILLed, restarted after 1 s',
      () => server.kill(),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await server.start();
      },
    );
  });
});

describe('roster primary on MariaDB', () => {
  afterEach(killAllNodes);

  it('a contender acts as primary with the server clock, and `primary get` reads it', async () => {
    const p = startRoster('primary', 'run', '--store', server.url, '--group', 'myprimary', '--env', 'test', '--type', 'db', '--id', 'p1', '--endpoint', 'p1.local:8080', '--interval', String(I), '--timeout', '1200', '--json');
    await until(() => (p.events as unknown as PrimaryEvent[]).some((e) => e.event === 'acting'), WAIT, () => p.describe());
    const acting = (p.events as unknown as PrimaryEvent[]).find((e): e is Extract<PrimaryEvent, { event: 'acting' }> => e.event === 'acting')!;
    const dbNow = Number(await server.sql(`SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000`));
    expect(Math.abs(dbNow - acting.claimedAt)).toBeLessThan(WAIT);
    const got = await runRoster(['primary', 'get', '--store', server.url, '--group', 'myprimary', '--env', 'test', '--type', 'db', '--timeout', '1200', '--json']);
    expect(got.exit.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ primary: 'p1', endpoint: 'p1.local:8080' });
    p.signal('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });
});

describe('cluster-test -r mysql://', () => {
  afterEach(killAllClusterTests);

  it('two instances of 3 and 2 threads share a total of 5, and the one left has 0 of 3 when the other leaves', async () => {
    const args = (id: string, threads: number): string[] => ['-r', server.url, '-k', 'myclustertest', '-i', id, '-n', String(threads), '--interval', String(I)];
    const a = startClusterTest(...args('a', 3));
    const b = startClusterTest(...args('b', 2));
    const balanced = (): boolean => [a.last(), b.last()].every((x) => x?.total === 5);
    await until(balanced, WAIT, () => `${a.stdout}\n${a.stderr}\n${b.stdout}\n${b.stderr}`);
    expect([[0, 3], [2, 0]]).toContainEqual([a.last()!.index, b.last()!.index]);
    b.signal('SIGTERM');
    expect(await b.exited).toBe(0);
    await until(() => a.last()?.total === 3, WAIT, () => a.stdout);
    expect(a.last()).toEqual({ index: 0, threads: 3, total: 3 });
  });
});

describe('MariaDB over TLS (?ssl=)', () => {
  let certs: TestCertificates;
  let tlsServer: LocalMariaDB;
  beforeAll(async () => {
    certs = await makeCertificates();
    tlsServer = await LocalMariaDB.start({ tls: { cert: await certs.read(certs.serverCert), key: await certs.read(certs.serverKey) } });
    // A user the server admits over TLS only: connecting as it proves the connection is encrypted.
    await tlsServer.sql(`CREATE USER tlsonly@'%' IDENTIFIED BY 'tls' REQUIRE SSL; GRANT ALL ON roster.* TO tlsonly@'%'`);
  }, 60_000);
  afterAll(async () => {
    await tlsServer?.destroy();
    await certs?.remove();
  });

  it('verify-full with the CA connects over TLS; a wrong CA, no TLS for a TLS-only user, and TLS asked of a server without it are StoreAccessError', async () => {
    const url = tlsServer.urlFor('tlsonly', 'tls');
    const kv = await connectStore(`${url}?ssl=verify-full`, { tls: { ca: await certs.read(certs.caCert) } });
    try {
      await kv.set('k', 'v');
      expect(await kv.get('k')).toBe('v');
    } finally {
      await kv.close();
    }
    const wrongCa = await connectStore(`${url}?ssl=verify-full`, { tls: { ca: await certs.read(certs.otherCaCert) }, connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(StoreAccessError.is(wrongCa), String(wrongCa)).toBe(true);
    const plain = await connectStore(url, { connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(StoreAccessError.is(plain), String(plain)).toBe(true);
    const noTls = await connectStore(`${server.url}?ssl=require`, { connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(StoreAccessError.is(noTls), String(noTls)).toBe(true);
  });
});

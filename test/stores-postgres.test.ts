import type { PrimaryEvent } from '@roster/cli';
import { connectStore, StoreAccessError } from '@roster/kv-adapter';
import { LocalPostgres } from '@roster/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import { killAll as killAllClusterTests, startClusterTest } from './support/clusterTest.js';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

/**
 * `roster node --json` processes on a real PostgreSQL (`--store postgres://…`), at I = 100 ms and
 * T = 500 ms: election, failover, joins, graceful hand-over, and PostgreSQL's own faults (a fast
 * and an immediate restart, killed backends). The figures are printed at the end; the bounds
 * asserted are generous (the machine is shared), the protocol's are in the figures.
 */
const I = 100;
const T = 500;
const WAIT = 15_000;
/** How long the store stays down in a restart fault: longer than T, so every node sees it gone. */
const DOWN_MS = 1500;
const KEY = 'pgstores';

let server: LocalPostgres;
/** Every node of the group, in start order (dead ones included). */
const nodes: RosterNodeProcess[] = [];
const figures: string[] = [];
let ids = 0;

beforeAll(async () => {
  server = await LocalPostgres.start();
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await server?.destroy();
  if (figures.length > 0) console.log(`PostgreSQL figures (I = ${I} ms, T = ${T} ms):\n  ${figures.join('\n  ')}`);
});
afterEach(() => {
  expect(twoLeadersAtOnce(), `two processes reported leader at once:\n${describeAll()}`).toEqual([]);
});

function idOf(p: RosterNodeProcess): string {
  return p.events[0]?.id ?? '?';
}

function startNode(): RosterNodeProcess {
  const id = `n${++ids}`;
  const p = startRoster('node', '--store', `${server.url}?application_name=roster_${id}`, '--group', KEY, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json');
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
  figures.push(`${name}: join after it seen by all in ${await join()} ms`);
}

describe('roster node --store postgres:// (5 processes, I = 100 ms, T = 500 ms)', () => {
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

  it('SIGTERM of the leader hands over to another at once', async () => {
    await until(agreed, WAIT, describeAll);
    const leader = currentLeader();
    const old = leader.leader!;
    const sent = Date.now();
    leader.signal('SIGTERM');
    await until(() => alive().every((p) => p.leader != null && p.leader.token > old.token && p.leader.id === alive()[0]!.leader?.id), WAIT, describeAll);
    figures.push(`hand-over on SIGTERM: ${seenBy(alive().filter((p) => p !== leader), old.token) - sent} ms`);
    expect(await leader.exited).toEqual({ code: 0, signal: null });
    await until(agreed, WAIT, describeAll);
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
    // Still running, following the new leader, and listed by it.
    await until(agreed, WAIT, describeAll);
    expect(alive()).toContain(leader);
  });

  it('PostgreSQL restarted with a fast shutdown', async () => {
    await storeFault(
      'fast shutdown',
      () => server.stop('fast'),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await server.start();
      },
    );
  });

  it('PostgreSQL restarted with an immediate shutdown', async () => {
    await storeFault(
      'immediate shutdown',
      () => server.stop('immediate'),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await server.start();
      },
    );
  });

  it('every backend of the group killed (pg_terminate_backend)', async () => {
    let killed = 0;
    await storeFault(
      'killed backends',
      async () => {
        killed = await server.terminateBackends();
      },
      async () => {},
    );
    expect(killed).toBeGreaterThan(0);
  });

  it('a node that cannot reach the store stops reporting `leader` before its lease deadline', async () => {
    await until(agreed, WAIT, describeAll);
    const leader = currentLeader();
    const pausedAt = Date.now();
    server.pause();
    try {
      await until(() => leader.role !== 'leader', WAIT, describeAll);
    } finally {
      server.resume();
    }
    const lapseMs = Date.now() - pausedAt;
    figures.push(`store paused (SIGSTOP): the leader stopped reporting \`leader\` after ${lapseMs} ms`);
    expect(lapseMs).toBeLessThan(T + 300);
    await until(agreed, WAIT, describeAll);
  });
});

describe('roster primary on PostgreSQL', () => {
  afterEach(killAllNodes);

  it('a contender acts as primary with the database clock, and `primary get` reads it', async () => {
    const p = startRoster('primary', 'run', '--store', server.url, '--group', 'pgprimary', '--env', 'test', '--type', 'db', '--id', 'p1', '--endpoint', 'p1.local:8080', '--interval', String(I), '--timeout', '1200', '--json');
    await until(() => (p.events as unknown as PrimaryEvent[]).some((e) => e.event === 'acting'), WAIT, () => p.describe());
    const acting = (p.events as unknown as PrimaryEvent[]).find((e): e is Extract<PrimaryEvent, { event: 'acting' }> => e.event === 'acting')!;
    const dbNow = Number(await server.sql('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint'));
    expect(Math.abs(dbNow - acting.claimedAt)).toBeLessThan(WAIT);
    const got = await runRoster(['primary', 'get', '--store', server.url, '--group', 'pgprimary', '--env', 'test', '--type', 'db', '--timeout', '1200', '--json']);
    expect(got.exit.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toMatchObject({ primary: 'p1', endpoint: 'p1.local:8080' });
    p.signal('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
  });
});

describe('cluster-test -r postgres://', () => {
  afterEach(killAllClusterTests);

  it('two instances of 3 and 2 threads share a total of 5, and the one left has 0 of 3 when the other leaves', async () => {
    const args = (id: string, threads: number): string[] => ['-r', server.url, '-k', 'pgclustertest', '-i', id, '-n', String(threads), '--interval', String(I)];
    const a = startClusterTest(...args('a', 3));
    const b = startClusterTest(...args('b', 2));
    const balanced = (): boolean => [a.last(), b.last()].every((x) => x?.total === 5);
    await until(balanced, WAIT, () => `${a.stdout}\n${a.stderr}\n${b.stdout}\n${b.stderr}`);
    // The instances split the 5 threads in an order they agree on: a then b, or b then a.
    expect([[0, 3], [2, 0]]).toContainEqual([a.last()!.index, b.last()!.index]);
    b.signal('SIGTERM');
    expect(await b.exited).toBe(0);
    await until(() => a.last()?.total === 3, WAIT, () => a.stdout);
    expect(a.last()).toEqual({ index: 0, threads: 3, total: 3 });
  });
});

describe('PostgreSQL over TLS (sslmode)', () => {
  let certs: TestCertificates;
  let tlsServer: LocalPostgres;
  beforeAll(async () => {
    certs = await makeCertificates();
    tlsServer = await LocalPostgres.start({ tls: { cert: await certs.read(certs.serverCert), key: await certs.read(certs.serverKey) } });
  }, 60_000);
  afterAll(async () => {
    await tlsServer?.destroy();
    await certs?.remove();
  });

  it('verify-full with the CA connects over TLS; a wrong CA, and TLS asked of a server without it, are StoreAccessError', async () => {
    const kv = await connectStore(`${tlsServer.url}?sslmode=verify-full&application_name=tlscheck`, { tls: { ca: await certs.read(certs.caCert) } });
    try {
      await kv.set('k', 'v');
      const ssl = await tlsServer.sql(`SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'tlscheck'`);
      expect(ssl).toBe('t');
    } finally {
      await kv.close();
    }
    const wrongCa = await connectStore(`${tlsServer.url}?sslmode=verify-full`, { tls: { ca: await certs.read(certs.otherCaCert) }, connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(StoreAccessError.is(wrongCa), String(wrongCa)).toBe(true);
    const noTls = await connectStore(`${server.url}?sslmode=require`, { connectTimeoutMs: 3000 }).catch((e: unknown) => e);
    expect(StoreAccessError.is(noTls), String(noTls)).toBe(true);
  });
});

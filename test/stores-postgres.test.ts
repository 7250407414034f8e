import { connectStore, StoreAccessError } from '@roster/kv-adapter';
import { LocalPostgres } from '@roster/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import { killAll as killAllClusterTests } from './support/clusterTest.js';
import { DatabaseGroup } from './support/electionScenario.js';
import { killAllNodes, until } from './support/rosterNode.js';
import { clusterTestSharesThreads, primaryActsOnStoreClock } from './support/storeCommands.js';

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

let server: LocalPostgres;
const g = new DatabaseGroup({
  storeUrl: (id) => `${server.url}?application_name=roster_${id}`,
  group: 'pgstores',
  intervalMs: I,
  timeoutMs: T,
  waitMs: WAIT,
  joinAfterFault: true,
});

beforeAll(async () => {
  server = await LocalPostgres.start();
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await server?.destroy();
  if (g.figures.length > 0) console.log(`PostgreSQL figures (I = ${I} ms, T = ${T} ms):\n  ${g.figures.join('\n  ')}`);
});
afterEach(() => {
  expect(g.twoLeadersAtOnce(), `two processes reported leader at once:\n${g.describeAll()}`).toEqual([]);
});

describe('roster node --store postgres:// (5 processes, I = 100 ms, T = 500 ms)', () => {
  it('five nodes elect one leader and all see the five members', () => g.elect());

  it('SIGKILL of the leader: the others fail over within T + 2I (generous bound here), and a join is seen by all', () => g.failOverAfterKill());

  it('SIGTERM of the leader hands over to another at once', async () => {
    await g.waitAgreed();
    const leader = g.currentLeader();
    const old = leader.leader!;
    const sent = Date.now();
    leader.signal('SIGTERM');
    await until(() => g.alive().every((p) => p.leader != null && p.leader.token > old.token && p.leader.id === g.alive()[0]!.leader?.id), WAIT, g.describeAll);
    g.figures.push(`hand-over on SIGTERM: ${g.seenBy(g.alive().filter((p) => p !== leader), old.token) - sent} ms`);
    expect(await leader.exited).toEqual({ code: 0, signal: null });
    await g.waitAgreed();
  });

  it('SIGUSR2 makes the leader resign: another leads at once, and the resigned node stays a member', () => g.handOverOnResign());

  it('PostgreSQL restarted with a fast shutdown', async () => {
    await g.storeFault(
      'fast shutdown',
      () => server.stop('fast'),
      async () => {
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await server.start();
      },
    );
  });

  it('PostgreSQL restarted with an immediate shutdown', async () => {
    await g.storeFault(
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
    await g.storeFault(
      'killed backends',
      async () => {
        killed = await server.terminateBackends();
      },
      async () => {},
    );
    expect(killed).toBeGreaterThan(0);
  });

  it('a node that cannot reach the store stops reporting `leader` before its lease deadline', async () => {
    await g.waitAgreed();
    const leader = g.currentLeader();
    const pausedAt = Date.now();
    server.pause();
    try {
      await until(() => leader.role !== 'leader', WAIT, g.describeAll);
    } finally {
      server.resume();
    }
    const lapseMs = Date.now() - pausedAt;
    g.figures.push(`store paused (SIGSTOP): the leader stopped reporting \`leader\` after ${lapseMs} ms`);
    expect(lapseMs).toBeLessThan(T + 300);
    await g.waitAgreed();
  });
});

describe('roster primary on PostgreSQL', () => {
  afterEach(killAllNodes);

  it('a contender acts as primary with the database clock, and `primary get` reads it', async () => {
    const storeNow = async (): Promise<number> => Number(await server.sql('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint'));
    await primaryActsOnStoreClock({ url: server.url, group: 'pgprimary', intervalMs: I, waitMs: WAIT, storeNow });
  });
});

describe('cluster-test -r postgres://', () => {
  afterEach(killAllClusterTests);

  it('two instances of 3 and 2 threads share a total of 5, and the one left has 0 of 3 when the other leaves', async () => {
    await clusterTestSharesThreads({ url: server.url, key: 'pgclustertest', intervalMs: I, waitMs: WAIT });
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

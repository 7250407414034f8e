import { connectStore, StoreAccessError } from '@roster/kv-adapter';
import { LocalMariaDB } from '@roster/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import { killAll as killAllClusterTests } from './support/clusterTest.js';
import { DatabaseGroup, idOf } from './support/electionScenario.js';
import { killAllNodes } from './support/rosterNode.js';
import { clusterTestSharesThreads, primaryActsOnStoreClock } from './support/storeCommands.js';

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

let server: LocalMariaDB;
const g = new DatabaseGroup({ storeUrl: () => server.url, group: 'mystores', intervalMs: I, timeoutMs: T, waitMs: WAIT, joinAfterFault: false });

beforeAll(async () => {
  server = await LocalMariaDB.start();
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await server?.destroy();
  if (g.figures.length > 0) console.log(`MariaDB figures (I = ${I} ms, T = ${T} ms):\n  ${g.figures.join('\n  ')}`);
});
afterEach(() => {
  expect(g.twoLeadersAtOnce(), `two processes reported leader at once:\n${g.describeAll()}`).toEqual([]);
});

describe('roster node --store mysql:// (5 processes on MariaDB, I = 100 ms, T = 500 ms)', () => {
  it('five nodes elect one leader and all see the five members', () => g.elect());

  it('SIGKILL of the leader: the others fail over within T + 2I (generous bound here), and a join is seen by all', () => g.failOverAfterKill());

  it('SIGUSR2 makes the leader resign: another leads at once, and the resigned node stays a member', () => g.handOverOnResign());

  it('a follower that stops (SIGTERM) leaves: every other node drops it from the members', async () => {
    await g.waitAgreed();
    const follower = g.alive().find((p) => p.role !== 'leader')!;
    const sent = Date.now();
    follower.signal('SIGTERM');
    expect(await follower.exited).toEqual({ code: 0, signal: null });
    await g.waitAgreed();
    g.figures.push(`leave (SIGTERM of a follower) seen by all: ${Date.now() - sent} ms`);
    expect(g.alive().every((p) => !p.members.includes(idOf(follower)))).toBe(true);
  });

  it('MariaDB SIGKILLed and restarted under the group: one leader again, lists complete', async () => {
    await g.storeFault(
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
    const storeNow = async (): Promise<number> => Number(await server.sql(`SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000`));
    await primaryActsOnStoreClock({ url: server.url, group: 'myprimary', intervalMs: I, waitMs: WAIT, storeNow });
  });
});

describe('cluster-test -r mysql://', () => {
  afterEach(killAllClusterTests);

  it('two instances of 3 and 2 threads share a total of 5, and the one left has 0 of 3 when the other leaves', async () => {
    await clusterTestSharesThreads({ url: server.url, key: 'myclustertest', intervalMs: I, waitMs: WAIT });
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

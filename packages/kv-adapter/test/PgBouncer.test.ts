import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreAccessError, StoreUnavailableError } from '../src/index.js';
import { PostgresKV } from '../src/postgres.js';
import { LocalPgBouncer, LocalPostgres, type PgBouncerPoolMode } from '@roster/testing';
import { kvContract } from './contract.js';

/**
 * PostgresKV through a real PgBouncer (Debian's 1.18) in each pool mode. PgBouncer refuses startup
 * parameters it does not know (`statement_timeout`), and in transaction and statement mode hands
 * each transaction (or statement) of a client to any server connection: a client must keep no
 * session state (no named prepared statement, no `SET`, no advisory lock).
 */
let server: LocalPostgres;
const bouncers = new Map<PgBouncerPoolMode, LocalPgBouncer>();
let tables = 0;
/** A table no other test uses. */
const freshTable = (): string => `b_${process.pid}_${++tables}`;
const bouncer = (mode: PgBouncerPoolMode): LocalPgBouncer => bouncers.get(mode)!;

beforeAll(async () => {
  server = await LocalPostgres.start();
  await server.sql(`CREATE ROLE weak LOGIN PASSWORD 'weak'`);
  // Few server connections, so that a client's statements land on connections other clients used.
  for (const mode of ['transaction', 'session', 'statement'] as const) {
    bouncers.set(mode, await LocalPgBouncer.start(server, { poolMode: mode, poolSize: mode === 'session' ? 20 : 4, users: { weak: 'weak' } }));
  }
}, 60_000);
afterAll(async () => {
  for (const b of bouncers.values()) await b.destroy();
  await server?.destroy();
});

kvContract('PostgresKV through PgBouncer, transaction pooling', async () => ({ kv: await PostgresKV.connect({ url: bouncer('transaction').url, table: freshTable() }) }));
kvContract('PostgresKV through PgBouncer, session pooling', async () => ({ kv: await PostgresKV.connect({ url: bouncer('session').url, table: freshTable() }) }));
// Statement pooling refuses a transaction that spans two queries; each operation is one query.
kvContract('PostgresKV through PgBouncer, statement pooling', async () => ({ kv: await PostgresKV.connect({ url: bouncer('statement').url, table: freshTable() }) }));

describe('PostgresKV through PgBouncer', () => {
  it('clients interleaved on 4 shared server connections (transaction pooling) all succeed: no statement relies on a session', async () => {
    const table = freshTable();
    const kvs = await Promise.all(Array.from({ length: 4 }, () => PostgresKV.connect({ url: bouncer('transaction').url, table, poolSize: 4 })));
    try {
      await Promise.all(kvs.flatMap((kv, i) => Array.from({ length: 10 }, (_, j) => kv.append('j', ` n${i}.${j}`))));
      expect((await kvs[0]!.get('j'))!.trim().split(' ')).toHaveLength(40);
      // The server connections really were shared: more clients than server connections.
      const onDatabase = async (command: string): Promise<number> =>
        (await bouncer('transaction').admin(command)).split('\n').filter((row) => row.split('|')[2] === 'postgres').length;
      const [clients, servers] = [await onDatabase('SHOW CLIENTS'), await onDatabase('SHOW SERVERS')];
      expect(servers).toBeLessThanOrEqual(4);
      expect(clients).toBeGreaterThan(servers);
    } finally {
      await Promise.all(kvs.map((kv) => kv.close()));
    }
  });

  it('the server-side bounds hold for the operation only: they never leak to the next client of the server connection', async () => {
    const kv = await PostgresKV.connect({ url: bouncer('transaction').url, table: freshTable(), commandTimeoutMs: 777 });
    try {
      await Promise.all(Array.from({ length: 8 }, (_, i) => kv.set(`k${i}`, 'v')));
      // psql gets one of the 4 server connections kv used (8 operations at once).
      const shown = await bouncer('transaction').sql(`SELECT current_setting('statement_timeout') || ' ' || current_setting('lock_timeout')`);
      expect(shown).toBe('0 0');
    } finally {
      await kv.close();
    }
  });

  it('a write that waits on a locked row past its deadline is cancelled by the server (SET LOCAL lock_timeout), never applied late', async () => {
    const table = freshTable();
    const kv = await PostgresKV.connect({ url: bouncer('transaction').url, table, commandTimeoutMs: 300 });
    try {
      await kv.set('busy', 'v');
      // psql holds the row locked for 1.5 s in a transaction of its own (directly on the server).
      const holder = server.sql(`BEGIN; SELECT * FROM ${table} WHERE key = 'busy' FOR UPDATE; SELECT pg_sleep(1.5); COMMIT;`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const error = await kv.set('busy', 'late').catch((e: unknown) => e);
      expect(StoreUnavailableError.is(error) && error.timedOut, String(error)).toBe(true);
      await holder;
      // Had the server not given up, the abandoned write would be applied once the lock is released.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await server.sql(`SELECT convert_from(value, 'UTF8') FROM ${table} WHERE key = 'busy'`)).toBe('v');
    } finally {
      await kv.close();
    }
  });

  it('a wrong password and an unknown database through PgBouncer are StoreAccessError at connect, at once', async () => {
    for (const url of [bouncer('transaction').urlFor('weak', 'wrong'), bouncer('transaction').urlFor('postgres', 'postgres', 'nosuchdb')]) {
      const started = performance.now();
      const error = await PostgresKV.connect({ url, table: freshTable(), connectTimeoutMs: 5000 }).catch((e: unknown) => e);
      expect(StoreAccessError.is(error), String(error)).toBe(true);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });
});

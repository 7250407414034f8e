import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStore, MissingDriverError, StoreAccessError, StoreUnavailableError, type KV } from '../src/index.js';
import { PostgresKV } from '../src/postgres.js';
import { render, statements, type Parameter, type Statement } from '../src/postgres/statements.js';
import { LocalPostgres } from '@roster/testing';
import { loadDriver } from '../src/backend/loadDriver.js';
import { kvContract } from './contract.js';

/** Settles `promise` and says how long it took. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([promise]);
  return { ms: performance.now() - started, result: result! };
}

function reason<T>(result: PromiseSettledResult<T>): unknown {
  expect(result.status).toBe('rejected');
  return (result as PromiseRejectedResult).reason;
}

let server: LocalPostgres;
let tables = 0;
/** A table no other test uses. */
const freshTable = (): string => `t_${process.pid}_${++tables}`;

beforeAll(async () => {
  server = await LocalPostgres.start();
  await server.sql(`CREATE ROLE weak LOGIN PASSWORD 'weak'; CREATE TABLE locked_kv (key text PRIMARY KEY, value bytea NOT NULL, expires_at timestamptz)`);
}, 60_000);
afterAll(async () => {
  await server?.destroy();
});

kvContract('PostgresKV (PostgreSQL)', async () => ({ kv: await PostgresKV.connect({ url: server.url, table: freshTable() }) }));

describe('PostgresKV on a real PostgreSQL', () => {
  it('finds a key by the primary key index in every statement that names one, not by a scan of the table', async () => {
    const table = freshTable();
    const kv = await PostgresKV.connect({ url: server.url, table });
    try {
      // Enough rows for the planner to prefer the index whenever it can use it.
      await server.sql(`INSERT INTO ${table} (key, value) SELECT 'k' || g, '\\x00' FROM generate_series(1, 5000) g; ANALYZE ${table}`);
      const sql = statements(table);
      const keyed: [string, Statement, Parameter[]][] = [
        ['get', sql.get, ['k7', 100]],
        ['getRange', sql.getRange, ['k7', 0, 63]],
        ['delete', sql.delete, ['k7']],
        ['take', sql.take, ['k7', 100]],
        ['size', sql.size, ['k7']],
        ['exchangeUpdate', sql.exchangeUpdate, ['k7', Buffer.from('v'), 100]],
        ['casEqual', sql.casEqual, ['k7', [Buffer.from('v')], null, Buffer.from('w')]],
      ];
      for (const [name, statement, values] of keyed) {
        const plan = await server.sql(`EXPLAIN ${render(statement, values)}`);
        expect(plan, name).toMatch(/Index (Only )?Scan using \S+_pkey/);
        expect(plan, name).not.toMatch(/Seq Scan/);
      }
    } finally {
      await kv.close();
    }
  });

  it('connectStore opens a postgres:// URL with PostgresKV, its table from ?table=', async () => {
    const table = freshTable();
    const kv = await connectStore(`${server.url}?table=${table}`);
    try {
      expect(kv.name).toBe('PostgresKV');
      await kv.set('k', 'v');
      expect(await server.sql(`SELECT convert_from(value, 'UTF8') FROM ${table} WHERE key = 'k'`)).toBe('v');
    } finally {
      await kv.close();
    }
  });

  it('the store clock is the database clock, and TTLs count on it', async () => {
    const kv = await PostgresKV.connect({ url: server.url, table: freshTable() });
    try {
      const db = Number(await server.sql(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint`));
      expect(Math.abs((await kv.time()) - db)).toBeLessThan(1000);
      await kv.set('short', 'v', { ttlMs: 150 });
      await kv.compareAndSet('cas', null, 'v', { ttlMs: 150 });
      expect(await kv.get('short')).toBe('v');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await kv.get('short')).toBeNull();
      expect(await kv.append('short', 'new')).toBe(3); // an expired key appends as absent
      expect((await kv.compareAndSet('cas', null, 'again')).swapped).toBe(true);
    } finally {
      await kv.close();
    }
  });

  it('several clients creating one table at once all start (the creation race)', async () => {
    const table = freshTable();
    const kvs = await Promise.all(Array.from({ length: 8 }, () => PostgresKV.connect({ url: server.url, table, poolSize: 2 })));
    try {
      await Promise.all(kvs.map((kv, i) => kv.set(`k${i}`, 'v')));
      expect(await server.sql(`SELECT count(*) FROM ${table}`)).toBe('8');
    } finally {
      await Promise.all(kvs.map((kv) => kv.close()));
    }
  });

  it('a table dropped under running clients is created again by their next operation', async () => {
    const table = freshTable();
    const kvs = await Promise.all(Array.from({ length: 4 }, () => PostgresKV.connect({ url: server.url, table })));
    try {
      await kvs[0]!.set('before', 'v');
      await server.sql(`DROP TABLE ${table}`);
      await Promise.all(kvs.map((kv, i) => kv.append('j', ` n${i}`)));
      expect((await kvs[0]!.get('j'))!.trim().split(' ').sort()).toEqual(['n0', 'n1', 'n2', 'n3']);
      expect(await kvs[1]!.get('before')).toBeNull();
    } finally {
      await Promise.all(kvs.map((kv) => kv.close()));
    }
  });

  it('a wrong password, an unknown database and a missing privilege are StoreAccessError at connect', async () => {
    for (const url of [server.urlFor('postgres', 'wrong'), server.urlFor('postgres', 'postgres', 'nosuchdb'), server.urlFor('weak', 'weak')]) {
      const { ms, result } = await timed(PostgresKV.connect({ url, table: freshTable(), connectTimeoutMs: 5000 }));
      const error = reason(result);
      expect(StoreAccessError.is(error), String(error)).toBe(true);
      expect(String(error)).not.toMatch(/:wrong@|:weak@/);
      expect(ms).toBeLessThan(2000); // at once, not after connectTimeoutMs
    }
  });

  it('a missing privilege on an existing table is a StoreAccessError at the first operation', async () => {
    const kv = await PostgresKV.connect({ url: server.urlFor('weak', 'weak'), table: 'locked_kv' });
    try {
      await expect(kv.get('k')).rejects.toSatisfy((e) => StoreAccessError.is(e) && /42501/.test((e as Error).message));
    } finally {
      await kv.close();
    }
  });

  it('an operation waiting on a lock fails as timed out within commandTimeoutMs', async () => {
    const table = freshTable();
    const kv = await PostgresKV.connect({ url: server.url, table, commandTimeoutMs: 300 });
    try {
      await kv.set('busy', 'v');
      // psql holds the row locked for 1 s in a transaction of its own.
      const holder = server.sql(`BEGIN; SELECT * FROM ${table} WHERE key = 'busy' FOR UPDATE; SELECT pg_sleep(1); COMMIT;`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { ms, result } = await timed(kv.set('busy', 'w'));
      const error = reason(result);
      expect(StoreUnavailableError.is(error) && error.timedOut, String(error)).toBe(true);
      expect(ms).toBeLessThan(1000);
      await holder;
      await kv.set('busy', 'w');
      expect(await kv.get('busy')).toBe('w');
    } finally {
      await kv.close();
    }
  });

  it('killed backends fail the operations on them as unavailable, and the next ones reconnect', async () => {
    const kv = await PostgresKV.connect({ url: `${server.url}?application_name=victim`, table: freshTable() });
    try {
      await Promise.all([kv.set('a', '1'), kv.set('b', '2'), kv.set('c', '3')]);
      expect(await server.terminateBackends('victim')).toBeGreaterThan(0);
      const outcomes = await Promise.allSettled([kv.get('a'), kv.get('b'), kv.get('c')]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') expect(StoreUnavailableError.is(outcome.reason)).toBe(true);
      await expect.poll(() => kv.get('a').catch(() => 'failed'), { timeout: 2000 }).toBe('1');
    } finally {
      await kv.close();
    }
  });

  it('a server shut down (fast, immediate) or killed fails operations fast as unavailable; they succeed soon after its restart', async () => {
    const kv = await PostgresKV.connect({ url: server.url, table: freshTable(), commandTimeoutMs: 500 });
    try {
      await kv.set('k', 'v');
      for (const fault of ['fast', 'immediate', 'kill'] as const) {
        if (fault === 'kill') await server.kill();
        else await server.stop(fault);
        const { ms, result } = await timed(kv.get('k'));
        expect(StoreUnavailableError.is(reason(result)), `${fault}: ${String(reason(result))}`).toBe(true);
        expect(ms).toBeLessThan(600);
        await server.start();
        await expect.poll(() => kv.get('k').catch(() => 'failed'), { timeout: 5000, interval: 20 }).toBe('v');
      }
    } finally {
      await kv.close();
    }
  }, 60_000);

  it('a paused server fails operations as timed out within commandTimeoutMs', async () => {
    const kv = await PostgresKV.connect({ url: server.url, table: freshTable(), commandTimeoutMs: 300 });
    try {
      await kv.set('k', 'v');
      server.pause();
      const { ms, result } = await timed(kv.get('k'));
      server.resume();
      expect(StoreUnavailableError.is(reason(result))).toBe(true);
      expect(ms).toBeLessThan(700);
      await expect.poll(() => kv.get('k').catch(() => 'failed'), { timeout: 3000 }).toBe('v');
    } finally {
      server.resume();
      await kv.close();
    }
  });

  it('a hot standby serves Roster nothing, reads included: every operation is a StoreUnavailableError naming the standby', async () => {
    const table = freshTable();
    const primary = await PostgresKV.connect({ url: server.url, table });
    const standby = await server.startStandby();
    try {
      await primary.set('k', 'v');
      // The row reached the standby: a plain read there would return it (stale, after a failover).
      await expect.poll(() => standby.sql(`SELECT count(*) FROM ${table}`).catch(() => '0'), { timeout: 10_000 }).toBe('1');
      const { result } = await timed(PostgresKV.connect({ url: standby.url, table, connectTimeoutMs: 500 }));
      const error = reason(result);
      expect(StoreUnavailableError.is(error) && /standby in recovery/.test(error.message), String(error)).toBe(true);
    } finally {
      await primary.close();
      await standby.destroy();
    }
  }, 60_000);

  it('an unreachable server is a StoreUnavailableError after connectTimeoutMs', async () => {
    const { ms, result } = await timed(PostgresKV.connect({ url: 'postgres://u:p@127.0.0.1:1/db', connectTimeoutMs: 400 }));
    expect(StoreUnavailableError.is(reason(result))).toBe(true);
    expect(String(reason(result))).not.toMatch(/u:p@/);
    expect(ms).toBeLessThan(1500);
  });
});

describe('loadDriver', () => {
  it('turns a missing optional driver into MissingDriverError naming the package', async () => {
    const name = 'roster-driver-that-is-not-installed';
    const error = await loadDriver(name, 'SomeKV', () => import(name) as Promise<KV>).catch((e: unknown) => e);
    expect(MissingDriverError.is(error) && error.packageName === name).toBe(true);
  });
});

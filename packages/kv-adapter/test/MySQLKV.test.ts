import { createServer, connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { createConnection, type Connection } from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStore, KVRejectedError, StoreAccessError, StoreUnavailableError } from '../src/index.js';
import { MySQLKV } from '../src/mysql.js';
import { mapMySQLError } from '../src/mysql/mapMySQLError.js';
import { parseMySQLUrl } from '../src/mysql/parseMySQLUrl.js';
import { statements } from '../src/mysql/statements.js';
import { KVClosedError, ConfigError } from '../src/index.js';
import { LocalMariaDB } from '@roster/testing';
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

/** Polls `kv.get(key)` until it reads `want`, and resolves to how long that took. */
async function recovers(kv: MySQLKV, key: string, want: string, timeout = 5000): Promise<number> {
  const started = performance.now();
  await expect.poll(() => kv.get(key).catch(() => 'failed'), { timeout, interval: 20 }).toBe(want);
  return Math.round(performance.now() - started);
}

/** What the tests measured, printed at the end (docs/faults.md quotes them). */
const figures: string[] = [];
let server: LocalMariaDB;
let tables = 0;
/** A table no other test uses. */
const freshTable = (): string => `t_${process.pid}_${++tables}`;

beforeAll(async () => {
  server = await LocalMariaDB.start();
  // `app`: an application user with no global privilege, so read_only and max_connections apply to it.
  await server.sql(
    `CREATE USER app@'%' IDENTIFIED BY 'app'; GRANT ALL ON roster.* TO app@'%'; CREATE USER weak@'%' IDENTIFIED BY 'weak'; GRANT SELECT ON roster.* TO weak@'%';
     CREATE TABLE roster.locked_kv (\`key\` VARBINARY(3072) NOT NULL PRIMARY KEY, value LONGBLOB NOT NULL, expires_at BIGINT NULL)`,
  );
}, 60_000);
afterAll(async () => {
  await server?.destroy();
  if (figures.length > 0) console.log(`MariaDB figures:\n  ${figures.join('\n  ')}`);
});

kvContract('MySQLKV (MariaDB)', async () => ({ kv: await MySQLKV.connect({ url: server.url, table: freshTable() }) }));

describe('MySQLKV on a real MariaDB', () => {
  it('connectStore opens mysql:// and mariadb:// URLs with MySQLKV, its table from ?table=', async () => {
    const table = freshTable();
    for (const url of [`${server.url}?table=${table}`, `${server.url.replace('mysql://', 'mariadb://')}?table=${table}`]) {
      const kv = await connectStore(url);
      try {
        expect(kv.name).toBe('MySQLKV');
        await kv.set('k', url.slice(0, 5));
        expect(await server.sql(`SELECT CONVERT(value USING utf8mb4) FROM roster.${table} WHERE \`key\` = 'k'`)).toBe(url.slice(0, 5));
      } finally {
        await kv.close();
      }
    }
  });

  it('the store clock is the server clock (UTC_TIMESTAMP(6), ms), and TTLs count on it', async () => {
    const kv = await MySQLKV.connect({ url: server.url, table: freshTable() });
    try {
      const db = Number(await server.sql(`SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000`));
      expect(Math.abs((await kv.time()) - db)).toBeLessThan(1000);
      expect(Math.abs((await kv.time()) - Date.now())).toBeLessThan(5000); // the same machine: the same epoch, no time-zone shift
      await kv.set('short', 'v', { ttlMs: 150 });
      await kv.compareAndSet('cas', null, 'v', { ttlMs: 150 });
      expect(await kv.get('short')).toBe('v');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await kv.get('short')).toBeNull();
      expect(await kv.append('short', 'new')).toBe(3); // an expired key appends as absent
      expect((await kv.compareAndSet('cas', null, 'again')).swapped).toBe(true);
      expect(await kv.exchange('cas', 'x')).toBe('again');
    } finally {
      await kv.close();
    }
  });

  it('several clients creating one table at once all start (the creation race), and a dropped table is created again', async () => {
    const table = freshTable();
    const kvs = await Promise.all(Array.from({ length: 6 }, () => MySQLKV.connect({ url: server.url, table, poolSize: 2 })));
    try {
      await Promise.all(kvs.map((kv, i) => kv.set(`k${i}`, 'v')));
      expect(await server.sql(`SELECT COUNT(*) FROM roster.${table}`)).toBe('6');
      await server.sql(`DROP TABLE roster.${table}`);
      await Promise.all(kvs.map((kv, i) => kv.append('j', ` n${i}`)));
      expect((await kvs[0]!.get('j'))!.trim().split(' ').sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5']);
    } finally {
      await Promise.all(kvs.map((kv) => kv.close()));
    }
  });

  it('a wrong password, an unknown database and a missing privilege are StoreAccessError at connect, at once', async () => {
    for (const url of [server.urlFor('app', 'wrong'), server.urlFor('app', 'app', 'nosuchdb'), server.urlFor('weak', 'weak')]) {
      const { ms, result } = await timed(MySQLKV.connect({ url, table: freshTable(), connectTimeoutMs: 5000 }));
      const error = reason(result);
      expect(StoreAccessError.is(error), String(error)).toBe(true);
      expect(String(error)).not.toMatch(/:wrong@|:weak@/);
      expect(ms).toBeLessThan(2000);
    }
    const kv = await MySQLKV.connect({ url: server.urlFor('weak', 'weak'), table: 'locked_kv' });
    try {
      await expect(kv.set('k', 'v')).rejects.toSatisfy((e) => StoreAccessError.is(e) && /1142/.test((e as Error).message));
    } finally {
      await kv.close();
    }
  });

  it('an operation waiting on a row lock fails as timed out within commandTimeoutMs', async () => {
    const table = freshTable();
    const kv = await MySQLKV.connect({ url: server.url, table, commandTimeoutMs: 300 });
    try {
      await kv.set('busy', 'v');
      const holder = server.sql(`BEGIN; SELECT * FROM roster.${table} WHERE \`key\` = 'busy' FOR UPDATE; SELECT SLEEP(1.2); COMMIT;`);
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

  it('killed connections (KILL): an operation in flight fails at once as unavailable, idle ones are replaced, the next operations succeed', async () => {
    const table = freshTable();
    const kv = await MySQLKV.connect({ url: server.urlFor('app', 'app'), table, commandTimeoutMs: 2000 });
    try {
      await Promise.all([kv.set('a', '1'), kv.set('b', '2'), kv.set('c', '3')]);
      // Root holds row `a` locked, so that kv's write to it is in flight (waiting) when it is killed.
      const holder = server.sql(`BEGIN; SELECT * FROM roster.${table} WHERE \`key\` = 'a' FOR UPDATE; SELECT SLEEP(1.5); COMMIT;`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const inFlight = timed(kv.set('a', 'new'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const killedAt = performance.now();
      expect(await server.killConnections('app')).toBeGreaterThan(0);
      const { result } = await inFlight;
      const failedAfterKill = Math.round(performance.now() - killedAt);
      const error = reason(result);
      expect(StoreUnavailableError.is(error) && !error.timedOut, String(error)).toBe(true);
      expect(failedAfterKill).toBeLessThan(1000); // from the KILL, not from the operation's deadline
      figures.push(`connections killed (KILL): the write in flight failed ${failedAfterKill} ms after the KILL (${(error as Error).message.slice(0, 90)}); reads again after ${await recovers(kv, 'b', '2')} ms`);
      await holder;
      await kv.set('a', 'new');
      expect(await kv.get('a')).toBe('new');
    } finally {
      await kv.close();
    }
  });

  it('read_only switched on under the writer: writes fail as unavailable, reads go on; writes succeed once it is off', async () => {
    const kv = await MySQLKV.connect({ url: server.urlFor('app', 'app'), table: freshTable() });
    try {
      await kv.set('k', 'v');
      await server.setReadOnly(true);
      try {
        const writes = [() => kv.set('k', 'w'), () => kv.append('j', 'x'), () => kv.compareAndSet('k', 'v', 'w'), () => kv.take('k'), () => kv.exchange('k', 'w')];
        for (const write of writes) {
          const error = await write().catch((e: unknown) => e);
          expect(StoreUnavailableError.is(error) && /1290|1836/.test((error as Error).message), String(error)).toBe(true);
        }
        expect(await kv.get('k')).toBe('v');
      } finally {
        await server.setReadOnly(false);
      }
      await kv.set('k', 'w');
      expect(await kv.get('k')).toBe('w');
    } finally {
      await server.setReadOnly(false);
      await kv.close();
    }
  });

  it('max_connections reached: new connections fail as unavailable (1040), paced, and work again after', async () => {
    const hogs: Connection[] = [];
    const kv = await MySQLKV.connect({ url: server.urlFor('app', 'app'), table: freshTable(), poolSize: 1 });
    try {
      await kv.set('k', 'v');
      await server.sql('SET GLOBAL max_connections = 10'); // MariaDB's least
      await server.killConnections('app'); // kv must reconnect, into a full server
      // Other clients take every connection the server allows.
      let refusal: unknown;
      while (refusal === undefined && hogs.length < 20) {
        await createConnection(server.urlFor('app', 'app')).then((c) => hogs.push(c), (e: unknown) => (refusal = e));
      }
      expect((refusal as { errno?: number }).errno).toBe(1040);
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => kv.get('k')));
      const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(failed).toHaveLength(20);
      for (const { reason: error } of failed) expect(StoreUnavailableError.is(error), String(error)).toBe(true);
      expect(failed.some((o) => /1040|Too many/.test(String(o.reason)))).toBe(true);
      hogs.splice(0).forEach((c) => c.destroy());
      figures.push(`max_connections reached: reads again ${await recovers(kv, 'k', 'v')} ms after connections were freed`);
    } finally {
      hogs.forEach((c) => c.destroy());
      await server.sql('SET GLOBAL max_connections = 200');
      await kv.close();
    }
  });

  it('a server shut down cleanly or SIGKILLed fails operations fast as unavailable; they succeed soon after its restart', async () => {
    const kv = await MySQLKV.connect({ url: server.url, table: freshTable(), commandTimeoutMs: 500 });
    try {
      await kv.set('k', 'v');
      for (const fault of ['shutdown', 'kill'] as const) {
        if (fault === 'kill') await server.kill();
        else await server.stop();
        const { ms, result } = await timed(kv.get('k'));
        expect(StoreUnavailableError.is(reason(result)), `${fault}: ${String(reason(result))}`).toBe(true);
        expect(ms).toBeLessThan(600);
        // A second of downtime: operations meanwhile fail at once, and attempts are paced.
        const failing = await Promise.allSettled(Array.from({ length: 10 }, () => kv.get('k')));
        expect(failing.every((o) => o.status === 'rejected' && StoreUnavailableError.is(o.reason))).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const started = performance.now();
        await server.start();
        const restartMs = Math.round(performance.now() - started);
        figures.push(`server ${fault === 'kill' ? 'SIGKILLed' : 'shut down (SIGTERM)'}: first operation failed after ${Math.round(ms)} ms; restart took ${restartMs} ms; reads again ${await recovers(kv, 'k', 'v')} ms after it accepted connections`);
      }
    } finally {
      await kv.close();
    }
  }, 60_000);

  it('a paused server fails operations as timed out within commandTimeoutMs', async () => {
    const kv = await MySQLKV.connect({ url: server.url, table: freshTable(), commandTimeoutMs: 300 });
    try {
      await kv.set('k', 'v');
      server.pause();
      await new Promise((resolve) => setTimeout(resolve, 50)); // SIGSTOP is asynchronous: let it land
      const { ms, result } = await timed(kv.get('k'));
      server.resume();
      expect(StoreUnavailableError.is(reason(result))).toBe(true);
      expect(ms).toBeLessThan(700);
      figures.push(`server paused (SIGSTOP) then resumed: reads again ${await recovers(kv, 'k', 'v')} ms after SIGCONT`);
    } finally {
      server.resume();
      await kv.close();
    }
  });

  it.each(['refused', 'silent'] as const)('no connection storm: a server whose new connections are %s gets a few attempts a second, however busy the client', async (mode) => {
    const proxy = await connectionCountingProxy(server.port);
    const kv = await MySQLKV.connect({ url: `mysql://roster:roster@127.0.0.1:${proxy.port}/roster`, table: freshTable(), commandTimeoutMs: 300 });
    try {
      await kv.set('k', 'v');
      proxy.down(mode); // existing connections cut; new ones refused (closed at once) or never answered
      const before = proxy.connections;
      const started = performance.now();
      // 50 operations a second (a node at I = 100 ms runs a few per interval), for 2 s.
      const outcomes: PromiseSettledResult<unknown>[] = [];
      while (performance.now() - started < 2000) {
        outcomes.push(...(await Promise.allSettled([kv.get('k'), new Promise((resolve) => setTimeout(resolve, 20))])).slice(0, 1));
      }
      const attempts = proxy.connections - before;
      const seconds = (performance.now() - started) / 1000;
      expect(outcomes.every((o) => o.status === 'rejected' && StoreUnavailableError.is(o.reason))).toBe(true);
      // The back-off was reached: operations that wanted a new connection too soon failed at once.
      expect(outcomes.some((o) => /no new connection for \d+ ms/.test(String((o as PromiseRejectedResult).reason)))).toBe(true);
      figures.push(`server ${mode === 'refused' ? 'closing new connections at once' : 'not answering new connections'}: ${outcomes.length} operations in ${seconds.toFixed(1)} s made ${attempts} connection attempts (${(attempts / seconds).toFixed(1)}/s)`);
      expect(attempts).toBeLessThanOrEqual(12); // ConnectBackOff: one at once, then 100, 200, 400 and every 500 ms (less jitter)
      proxy.up();
      figures.push(`server ${mode} then back: reads again after ${await recovers(kv, 'k', 'v')} ms`);
    } finally {
      await kv.close();
      proxy.close();
    }
  });

  it('an unreachable server is a StoreUnavailableError after connectTimeoutMs', async () => {
    const { ms, result } = await timed(MySQLKV.connect({ url: 'mysql://u:p@127.0.0.1:1/db', connectTimeoutMs: 400 }));
    expect(StoreUnavailableError.is(reason(result))).toBe(true);
    expect(String(reason(result))).not.toMatch(/u:p@/);
    expect(ms).toBeLessThan(1500);
  });
});

/**
 * A TCP proxy to the server that counts the connections made to it; `down` cuts the open ones and
 * then closes new ones at once (`refused`) or holds them without a byte (`silent`), `up` heals it.
 */
async function connectionCountingProxy(target: number): Promise<{ port: number; connections: number; down(mode: 'refused' | 'silent'): void; up(): void; close(): void }> {
  const sockets = new Set<Socket>();
  let mode: 'up' | 'refused' | 'silent' = 'up';
  const state = { connections: 0 };
  const proxy = createServer((client) => {
    state.connections++;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (mode === 'refused') return void client.destroy();
    if (mode === 'silent') return;
    const upstream = netConnect(target, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    down(next) {
      mode = next;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      mode = 'up';
      for (const socket of sockets) socket.destroy(); // silent ones hang until cut
    },
    close() {
      for (const socket of sockets) socket.destroy();
      proxy.close();
    },
  };
}

describe('statements: the per-statement bound in each flavour, never session state', () => {
  const texts = (flavour: 'mariadb' | 'mysql'): string[] => {
    const sql = statements('roster_kv', flavour, 750);
    return [sql.get, sql.set, sql.delete, sql.append, sql.take, sql.getRange, sql.exchange, sql.casInsert(2), sql.casExpired(1), sql.casEqual(3), sql.casPrefix(1), sql.current, sql.time, sql.sweep];
  };

  it('MariaDB: every statement carries SET STATEMENT max_statement_time (0.750 s) and a lock wait of at least 1 s', () => {
    for (const text of texts('mariadb')) {
      for (const one of text.split('; ').filter((t) => t !== 'START TRANSACTION' && t !== 'COMMIT')) {
        expect(one).toMatch(/^SET STATEMENT max_statement_time=0\.750, innodb_lock_wait_timeout=1 FOR /);
      }
    }
  });

  it('MySQL: reads carry the MAX_EXECUTION_TIME hint; nothing uses SET STATEMENT, SET SESSION or GET_LOCK', () => {
    const all = texts('mysql');
    expect(all.filter((t) => t.startsWith('SELECT ')).every((t) => t.startsWith('SELECT /*+ MAX_EXECUTION_TIME(750) */ '))).toBe(true);
    for (const text of [...all, ...texts('mariadb')]) expect(text).not.toMatch(/\bSET\s+(SESSION|GLOBAL|@|NAMES|autocommit|TRANSACTION)|GET_LOCK|@@session/i);
    for (const text of all) expect(text).not.toMatch(/SET STATEMENT/);
  });
});

describe('parseMySQLUrl', () => {
  it('reads user, password, host, port, database, ssl and table; mariadb:// is the same', () => {
    expect(parseMySQLUrl('mysql://ro%40ster:p%2Fw@db.internal/app?ssl=verify-full&table=kv')).toEqual({
      host: 'db.internal',
      port: 3306,
      database: 'app',
      user: 'ro@ster',
      password: 'p/w',
      ssl: 'verify-full',
      table: 'kv',
    });
    expect(parseMySQLUrl('mariadb://u@[::1]:3307/d')).toEqual({ host: '::1', port: 3307, database: 'd', user: 'u', ssl: 'disable' });
  });

  it.each([
    ['mysql://db.internal/app', /user name/],
    ['mysql://u@db.internal', /database/],
    ['mysql://u@db.internal/app?ssl=yes', /ssl/],
    ['mysql://u:secret@db.internal/app?password=x', /parameters/],
    ['mysql://u@h1,h2/app', /one MySQL host/],
  ])('refuses %s with a ConfigError on `store`, the password hidden', (url, message) => {
    const error = (() => {
      try {
        parseMySQLUrl(url);
      } catch (e) {
        return e;
      }
    })();
    expect(ConfigError.is(error) && error.field === 'store' && message.test(error.message), String(error)).toBe(true);
    expect(String(error)).not.toMatch(/secret/);
  });
});

/** An error shaped as mysql2's error reply: `errno`, `sqlState`, `code`. */
function serverError(errno: number, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { errno, sqlState: 'HY000', code: `ER_${errno}`, ...extra });
}

const context = { backend: 'MySQLKV', operation: 'get', closed: false };

describe('mapMySQLError: failures by error number and class', () => {
  it.each([
    [1040, 'Too many connections'],
    [1203, 'User app already has more than max_user_connections active connections'],
    [1290, 'The MariaDB server is running with the --read-only option so it cannot execute this statement'],
    [1836, 'Running in read-only mode'],
    [1213, 'Deadlock found when trying to get lock; try restarting transaction'],
    [1927, 'Connection was killed'],
    [1053, 'Server shutdown in progress'],
    [2013, 'Lost connection to server during query'],
  ])('%s (%s) is the store unavailable, not timed out', (errno, message) => {
    const mapped = mapMySQLError(serverError(errno, message), context);
    expect(StoreUnavailableError.is(mapped) && !mapped.timedOut && mapped.message.includes(String(errno))).toBe(true);
  });

  it.each([
    [1205, 'Lock wait timeout exceeded; try restarting transaction'],
    [1969, 'Query execution was interrupted (max_statement_time exceeded)'],
    [3024, 'Query execution was interrupted, maximum statement execution time exceeded'],
  ])('%s (%s) is the store unavailable and timed out', (errno, message) => {
    const mapped = mapMySQLError(serverError(errno, message), context);
    expect(StoreUnavailableError.is(mapped) && mapped.timedOut).toBe(true);
  });

  it.each([
    [1045, "Access denied for user 'app'@'10.0.0.9' (using password: YES)"],
    [1044, "Access denied for user 'app'@'%' to database 'other'"],
    [1049, "Unknown database 'app'"],
    [1142, "INSERT command denied to user 'weak'@'localhost' for table 'roster_kv'"],
    [3159, 'Connections using insecure transport are prohibited while --require_secure_transport=ON.'],
  ])('%s (%s) is access refused', (errno, message) => {
    expect(StoreAccessError.is(mapMySQLError(serverError(errno, message), context))).toBe(true);
  });

  it('any other server error is a rejection, with its number in the message', () => {
    const mapped = mapMySQLError(serverError(1064, 'You have an error in your SQL syntax'), context);
    expect(mapped).toBeInstanceOf(KVRejectedError);
    expect(String(mapped)).toMatch(/1064/);
  });

  it('client-side failures: refused or lost is unavailability, mysql2\'s timeout timed out, a TLS refusal access', () => {
    const refused = mapMySQLError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED', errno: -111 }), context);
    expect(StoreUnavailableError.is(refused) && !refused.timedOut).toBe(true);
    expect(StoreUnavailableError.is(mapMySQLError(Object.assign(new Error('Connection lost: The server closed the connection.'), { code: 'PROTOCOL_CONNECTION_LOST' }), context))).toBe(true);
    const timeout = mapMySQLError(Object.assign(new Error('Query inactivity timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' }), context);
    expect(StoreUnavailableError.is(timeout) && timeout.timedOut).toBe(true);
    expect(StoreAccessError.is(mapMySQLError(Object.assign(new Error('self-signed certificate in certificate chain'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }), context))).toBe(true);
    expect(StoreAccessError.is(mapMySQLError(Object.assign(new Error('Server does not support secure connection'), { code: 'HANDSHAKE_NO_SSL_SUPPORT' }), context))).toBe(true);
    expect(StoreAccessError.is(mapMySQLError(Object.assign(new Error('unable to verify the first certificate'), { code: 'HANDSHAKE_SSL_ERROR', fatal: true }), context))).toBe(true);
    expect(StoreUnavailableError.is(mapMySQLError(Object.assign(new Error('socket hang up'), { code: 'HANDSHAKE_SSL_ERROR', fatal: true }), context))).toBe(true);
  });

  it('after close every failure is KV_CLOSED; programming errors pass through', () => {
    expect(mapMySQLError(new Error('Pool is closed.'), { ...context, closed: true })).toBeInstanceOf(KVClosedError);
    const bug = new TypeError('x is not a function');
    expect(mapMySQLError(bug, context)).toBe(bug);
  });
});

import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ConfigError, KVRejectedError, RosterError, StoreUnavailableError, ValueTooLargeError, redactStoreUrl } from '@roster/kv-adapter';
import { RedisKV, parseStoreUrl } from '@roster/kv-adapter/redis';
import { MemoryLogger } from '@roster/testing';
import { kvContract } from '../packages/kv-adapter/test/contract.js';
import { startRedis, type RedisTestServer } from './support/redis.js';

const MiB = 1024 * 1024;

/** Records unhandled rejections while a test runs; the test asserts there were none. */
function trackUnhandledRejections(): { readonly seen: unknown[]; stop(): void } {
  const seen: unknown[] = [];
  const listener = (reason: unknown): void => void seen.push(reason);
  process.on('unhandledRejection', listener);
  return { seen, stop: () => process.off('unhandledRejection', listener) };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Settles `promise` and says how long it took, so a test can bound it. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([promise]);
  return { ms: performance.now() - started, result: result! };
}

function rejectionOf<T>(result: PromiseSettledResult<T>): unknown {
  expect(result.status).toBe('rejected');
  return (result as PromiseRejectedResult).reason;
}

describe('RedisKV on one redis-server', () => {
  let redis: RedisTestServer;
  let raw: Redis;

  beforeAll(async () => {
    redis = await startRedis();
    raw = new Redis(redis.port, redis.host, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    raw?.disconnect();
    await redis?.stop();
  });

  kvContract('RedisKV (redis-server)', async () => {
    await raw.flushall();
    return { kv: await RedisKV.connect({ url: redis.url }) };
  });

  describe('values over the limit', () => {
    let kv: RedisKV;
    beforeEach(async () => {
      await raw.flushall();
      kv = await RedisKV.connect({ url: redis.url });
    });
    afterEach(() => kv.close());

    it('a 2 MiB value written by someone else is refused on read, by get and take', async () => {
      await raw.set('big', 'x'.repeat(2 * MiB));
      const error = await kv.get('big').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValueTooLargeError);
      expect(error).toMatchObject({ code: 'KV_VALUE_TOO_LARGE', key: 'big', bytes: 2 * MiB, limit: MiB });
      await expect(kv.take('big')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_VALUE_TOO_LARGE'));
    });

    it('compareAndSet reports a current value over the limit as too large', async () => {
      await raw.set('big', 'x'.repeat(2 * MiB));
      await expect(kv.compareAndSet('big', 'other', 'v')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_VALUE_TOO_LARGE'));
    });

    it('a small maxValueBytes is enforced on set, append (atomically) and compareAndSet stamps', async () => {
      const small = await RedisKV.connect({ url: redis.url, maxValueBytes: 16 });
      try {
        await expect(small.set('k', 'x'.repeat(17))).rejects.toBeInstanceOf(ValueTooLargeError);
        expect(await small.append('j', 'x'.repeat(10))).toBe(10);
        await expect(small.append('j', 'x'.repeat(7))).rejects.toMatchObject({ code: 'KV_VALUE_TOO_LARGE', bytes: 17, limit: 16 });
        expect(await raw.get('j')).toBe('x'.repeat(10));
        // '@' becomes a 13-digit time: 3 + 13 = 16 bytes fits, 4 + 13 = 17 does not.
        expect((await small.compareAndSet('c', null, 'abc@', { stampToken: '@' })).swapped).toBe(true);
        await expect(small.compareAndSet('d', null, 'abcd@', { stampToken: '@' })).rejects.toMatchObject({
          code: 'KV_VALUE_TOO_LARGE',
          bytes: 17,
        });
        expect(await raw.exists('d')).toBe(0);
      } finally {
        await small.close();
      }
    });
  });

  describe('store refusals', () => {
    let kv: RedisKV;
    beforeEach(async () => {
      await raw.flushall();
      kv = await RedisKV.connect({ url: redis.url });
    });
    afterEach(() => kv.close());

    it('a key of the wrong type gives KVRejectedError for every operation, and nothing changes', async () => {
      await raw.lpush('list', 'a');
      for (const op of [
        () => kv.get('list'),
        () => kv.append('list', 'x'),
        () => kv.take('list'),
        () => kv.compareAndSet('list', null, 'x'),
        () => kv.compareAndSet('list', 'a', 'x'),
      ]) {
        const error = await op().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(KVRejectedError);
        expect((error as Error).message).toMatch(/WRONGTYPE/);
        expect((error as Error).cause).toBeDefined();
      }
      expect(await raw.lrange('list', 0, -1)).toEqual(['a']);
    });

    it('set with ttlMs expires on the server; compareAndSet takes a ttl too', async () => {
      await kv.set('t', 'v', { ttlMs: 100 });
      expect(await raw.pttl('t')).toBeGreaterThan(0);
      const cas = await kv.compareAndSet('c', null, 'v', { ttlMs: 100.5 });
      expect(cas.swapped).toBe(true);
      expect(await raw.pttl('c')).toBeLessThanOrEqual(101);
      await delay(250);
      expect(await kv.get('t')).toBeNull();
      expect(await kv.get('c')).toBeNull();
      await expect(kv.set('t', 'v', { ttlMs: 0 })).rejects.toSatisfy((e) => ConfigError.is(e));
    });

    it('an aborted signal rejects with its reason', async () => {
      const reason = new Error('stop');
      await expect(kv.get('k', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    });
  });

  it('selects the database of the URL', async () => {
    const kv = await RedisKV.connect({ url: `${redis.url}/3` });
    try {
      await kv.set('db-key', 'three');
      expect(await raw.get('db-key')).toBeNull();
      const db3 = new Redis({ port: redis.port, host: redis.host, db: 3 });
      expect(await db3.get('db-key')).toBe('three');
      db3.disconnect();
    } finally {
      await kv.close();
    }
  });

  it('uses a client it is given, and leaves it open on close', async () => {
    const client = new Redis(redis.port, redis.host, { lazyConnect: true });
    const kv = await RedisKV.connect({ client });
    await kv.set('given', 'yes');
    await kv.close();
    expect(await client.get('given')).toBe('yes');
    client.disconnect();
  });
});

describe('RedisKV when the store fails', () => {
  let redis: RedisTestServer | undefined;
  let unhandled: ReturnType<typeof trackUnhandledRejections>;
  beforeEach(() => {
    unhandled = trackUnhandledRejections();
  });
  afterEach(async () => {
    unhandled.stop();
    await redis?.stop();
    redis = undefined;
    expect(unhandled.seen).toEqual([]);
  });

  it('connecting to a closed port rejects with StoreUnavailableError after connectTimeoutMs', async () => {
    const port = await closedPort();
    const { ms, result } = await timed(RedisKV.connect({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 500 }));
    const error = rejectionOf(result);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
    expect(ms).toBeGreaterThanOrEqual(450);
    expect(ms).toBeLessThan(2000);
  });

  it('connect rejects with the signal reason when aborted', async () => {
    const port = await closedPort();
    const { ms, result } = await timed(
      RedisKV.connect({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 10_000 }, { signal: AbortSignal.timeout(100) }),
    );
    expect((rejectionOf(result) as Error).name).toBe('TimeoutError');
    expect(ms).toBeLessThan(1000);
  });

  it('a server killed mid-run fails every operation with StoreUnavailableError, fast; a restarted empty server is used again', async () => {
    redis = await startRedis();
    const logger = new MemoryLogger();
    const kv = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 500, logger });
    try {
      await kv.set('before', 'crash');

      // Arrange: a steady load of appends and reads in flight when the server dies.
      let running = true;
      const outcomes: PromiseSettledResult<unknown>[] = [];
      const load = (async () => {
        for (let i = 0; running; i++) {
          outcomes.push(...(await Promise.allSettled([kv.append('j', ` ${i}`), kv.get('before'), kv.time()])));
          // Failing fast means failing within microtasks: yield so the test's timers can run.
          await delay(5);
        }
      })();
      await delay(100);

      // Act: kill it.
      await redis.crash();
      await delay(300);
      running = false;
      const { ms: drainMs } = await timed(load);

      // Assert: everything settled, and every failure is a StoreUnavailableError.
      expect(drainMs).toBeLessThan(2000);
      const failures = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected').map((o) => o.reason as unknown);
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) expect(failure).toBeInstanceOf(StoreUnavailableError);

      for (const op of [() => kv.get('before'), () => kv.set('x', 'y'), () => kv.append('j', ' z'), () => kv.take('j'), () => kv.time()]) {
        const { ms, result } = await timed<unknown>(op());
        expect(rejectionOf(result)).toBeInstanceOf(StoreUnavailableError);
        expect(ms).toBeLessThan(1000);
      }
      expect(logger.entries.some((e) => e.level === 'warn' && e.message === 'redis: connection lost')).toBe(true);

      // A restarted server without persistence is empty; the client reconnects by itself.
      await redis.restart();
      const deadline = Date.now() + 10_000;
      let back: string | null | undefined;
      while (back === undefined && Date.now() < deadline) {
        back = await kv.get('before').catch(() => undefined);
        if (back === undefined) await delay(100);
      }
      expect(back).toBeNull();
      await kv.set('after', 'restart');
      expect(await kv.get('after')).toBe('restart');
    } finally {
      await kv.close();
    }
  });

  it('a hung server fails operations after commandTimeoutMs instead of hanging', async () => {
    redis = await startRedis();
    const kv = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 300 });
    try {
      redis.pause();
      const { ms, result } = await timed(kv.get('k'));
      expect(rejectionOf(result)).toBeInstanceOf(StoreUnavailableError);
      expect((rejectionOf(result) as Error).message).toMatch(/timed out/);
      expect(ms).toBeLessThan(1500);
      redis.resume();
      expect(await kv.get('k')).toBeNull();
    } finally {
      redis.resume();
      await kv.close();
    }
  });

  it('close is idempotent and bounded even when the server is gone', async () => {
    redis = await startRedis();
    const kv = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 300 });
    await redis.crash();
    const { ms } = await timed(Promise.all([kv.close(), kv.close()]));
    expect(ms).toBeLessThan(1000);
    await expect(kv.get('k')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_CLOSED'));
  });
});

describe('parseStoreUrl', () => {
  it.each([
    ['redis://127.0.0.1:6379', { mode: 'single', host: '127.0.0.1', port: 6379, db: 0, tls: false }],
    ['redis://localhost', { mode: 'single', host: 'localhost', port: 6379, db: 0, tls: false }],
    ['rediss://cache.example.com:6380', { mode: 'single', host: 'cache.example.com', port: 6380, db: 0, tls: true }],
    ['redis://app:s%40cret@h:1/2', { mode: 'single', host: 'h', port: 1, db: 2, tls: false, username: 'app', password: 's@cret' }],
    ['redis://:pw@h:1', { mode: 'single', host: 'h', port: 1, db: 0, tls: false, password: 'pw' }],
    ['redis://[::1]:7000/', { mode: 'single', host: '::1', port: 7000, db: 0, tls: false }],
    ['10.0.0.1:7000', { mode: 'single', host: '10.0.0.1', port: 7000, db: 0, tls: false }],
    [
      '10.0.0.1:7000, 10.0.0.2:7001',
      { mode: 'cluster', tls: false, nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }] },
    ],
    [
      'redis://u:p@a:1,redis://b:2',
      { mode: 'cluster', tls: false, username: 'u', password: 'p', nodes: [{ host: 'a', port: 1 }, { host: 'b', port: 2 }] },
    ],
    ['rediss://a:1,rediss://b:2', { mode: 'cluster', tls: true, nodes: [{ host: 'a', port: 1 }, { host: 'b', port: 2 }] }],
  ])('parses %s', (url, expected) => {
    expect(parseStoreUrl(url)).toEqual(expected);
  });

  it.each([
    ['', /non-empty/],
    ['http://h:1', /scheme/],
    ['redis://h:99999', /./],
    ['redis://h:0', /port/],
    ['redis://h:1/x', /database number/],
    ['redis://h:1?tls=true', /query string/],
    ['a:1,,b:2', /empty entry/],
    ['redis://a:1,rediss://b:2', /same scheme/],
    ['redis://a:1/1,redis://b:2', /database 0/],
    ['redis://u:p@a:1,redis://v:q@b:2', /credentials/],
    ['user@h:1', /bare entry/],
    ['redis://', /host/],
  ])('refuses %j with ConfigError on `store`', (url, message) => {
    const error = (() => {
      try {
        parseStoreUrl(url);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(ConfigError.is(error)).toBe(true);
    expect(error).toMatchObject({ field: 'store' });
    expect((error as Error).message).toMatch(message);
  });

  it('never puts a password into an error', () => {
    expect(() => parseStoreUrl('redis://app:hunter2@h:1/x')).toThrow(/redis:\/\/app:\*\*\*@h:1\/x/);
    expect(() => parseStoreUrl('redis://app:hunter2@h:1/x')).not.toThrow(/hunter2/);
    expect(redactStoreUrl('redis://a:b@h:1,redis://c:d@i:2')).toBe('redis://a:***@h:1,redis://c:***@i:2');
  });

  it('RedisKV.connect refuses bad options with ConfigError before connecting', async () => {
    await expect(RedisKV.connect({})).rejects.toMatchObject({ code: 'CONFIG_INVALID', field: 'url' });
    await expect(RedisKV.connect({ url: 'redis://h:1', connectTimeoutMs: -1 })).rejects.toMatchObject({ field: 'connectTimeoutMs' });
    await expect(RedisKV.connect({ url: 'ftp://h' })).rejects.toMatchObject({ field: 'store' });
    await expect(RedisKV.connect({ url: 'redis://h:1/2', cluster: true })).rejects.toMatchObject({ field: 'store' });
  });
});

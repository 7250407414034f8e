import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStoreUrl, ConfigError, connectStore, KVRejectedError, StoreAccessError, StoreUnavailableError } from '../src/index.js';
import { NatsKV, parseNatsUrl, redactNatsUrl } from '../src/nats.js';
import { mapNatsError } from '../src/nats/mapNatsError.js';
import { encodeKey } from '../src/nats/codec.js';
import { LocalNats, LocalNatsCluster, MemoryLogger, waitFor } from '@roster/testing';
import { kvContract } from './contract.js';

/** A nats-server of one's own, or LocalNats' default (Debian's /usr/sbin/nats-server). */
const NATS = process.env.ROSTER_NATS_BINARY;

describe('parseNatsUrl', () => {
  it('reads servers, credentials, TLS, the bucket and its replicas', () => {
    expect(parseNatsUrl('nats://roster:s%3Acret@10.0.0.1:4222,10.0.0.2,[::1]:4223/billing?replicas=3')).toEqual({
      servers: [
        { host: '10.0.0.1', port: 4222 },
        { host: '10.0.0.2', port: 4222 },
        { host: '::1', port: 4223 },
      ],
      tls: false,
      username: 'roster',
      password: 's:cret',
      bucket: 'billing',
      replicas: 3,
    });
    expect(parseNatsUrl('tls://t0ken@h')).toEqual({ servers: [{ host: 'h', port: 4222 }], tls: true, token: 't0ken' });
  });

  it('refuses what it cannot read with a ConfigError on `store`, its secrets redacted', () => {
    for (const bad of ['redis://h:1', 'nats://', 'nats://h:0', 'nats://h/a.b', 'nats://h/b?replicas=7', 'nats://h/b?history=2', 'nats://u:s3cret@h:99999']) {
      expect(() => parseNatsUrl(bad), bad).toThrow(ConfigError);
    }
    const error = (() => {
      try {
        parseNatsUrl('nats://u:s3cret@h:99999');
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error?.field).toBe('store');
    expect(String(error?.value)).not.toContain('s3cret');
    expect(redactNatsUrl('nats://u:s3cret@h:1,h:2/b')).toBe('nats://u:***@h:1,h:2/b');
    expect(redactNatsUrl('tls://s3cret@h:1')).toBe('tls://***@h:1');
  });
});

describe('connectStore with a NATS URL', () => {
  it('nats:// and tls:// select the nats backend; a token and a password are redacted', () => {
    expect(checkStoreUrl('nats://10.0.0.1:4222,10.0.0.2:4222/app?replicas=3').backend).toBe('nats');
    expect(checkStoreUrl('tls://roster:s3cret@nats.internal/app')).toEqual({ backend: 'nats', redacted: 'tls://roster:***@nats.internal/app' });
    expect(checkStoreUrl('nats://s3cret-token@h/app').redacted).toBe('nats://***@h/app');
    expect(() => checkStoreUrl('nats://h/a.b')).toThrow(/bucket/);
  });

  it('opens a NATS URL with NatsKV (an unreachable one is a StoreUnavailableError)', async () => {
    await expect(connectStore('nats://127.0.0.1:1/app', { connectTimeoutMs: 300 })).rejects.toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
  });
});

describe('encodeKey', () => {
  it('keeps NATS-safe ASCII and writes every other byte as =XX, one-to-one and without dots', () => {
    expect(encodeKey('leader 0')).toBe('leader=200');
    expect(encodeKey('clé/0')).toBe('cl=C3=A9/0');
    expect(encodeKey('a=b.c')).toBe('a=3Db=2Ec');
    expect(encodeKey('a b')).not.toBe(encodeKey('a=20b'));
  });
});

describe('mapNatsError', () => {
  const context = { backend: 'NatsKV', operation: 'get', closed: false };
  const named = (name: string, message: string, extra: object = {}): Error => Object.assign(Object.defineProperty(new Error(message), 'name', { value: name }), extra);

  it('timeouts are StoreUnavailableError with timedOut; lost connections and "no responders" without', () => {
    expect(mapNatsError(named('TimeoutError', 'timeout'), context)).toMatchObject({ code: 'KV_STORE_UNAVAILABLE', timedOut: true });
    expect(mapNatsError(named('NoResponders', 'no responders: $JS.API.STREAM.MSG.GET.KV_b'), context)).toMatchObject({ code: 'KV_STORE_UNAVAILABLE', timedOut: false });
    expect(mapNatsError(named('ConnectionError', 'connection refused'), context)).toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
    expect(mapNatsError(named('JetStreamApiError', 'JetStream system temporarily unavailable', { code: 10008 }), context)).toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
    // nats.js calls "no responders" to a JetStream request "jetstream is not enabled": a stream without a leader yet.
    expect(mapNatsError(named('JetStreamNotEnabled', 'jetstream is not enabled'), context)).toMatchObject({ code: 'KV_STORE_UNAVAILABLE', message: expect.stringMatching(/no stream leader yet/) });
  });

  it('refused credentials, permissions and TLS are StoreAccessError; other API errors KVRejectedError; after close KV_CLOSED', () => {
    expect(StoreAccessError.is(mapNatsError(named('AuthorizationError', "'Authorization Violation'"), context))).toBe(true);
    expect(StoreAccessError.is(mapNatsError(named('PermissionViolationError', 'Permissions Violation for Publish'), context))).toBe(true);
    expect(StoreAccessError.is(mapNatsError(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }), context))).toBe(true);
    expect(mapNatsError(named('JetStreamApiError', 'stream not found', { code: 10059 }), context)).toBeInstanceOf(KVRejectedError);
    expect(mapNatsError(named('ConnectionError', 'closed'), { ...context, closed: true })).toMatchObject({ code: 'KV_CLOSED' });
    const type = new TypeError('bug');
    expect(mapNatsError(type, context)).toBe(type);
  });
});

describe('NatsKV on one nats-server', () => {
  let nats: LocalNats;
  let buckets = 0;

  beforeAll(async () => {
    nats = await LocalNats.start({ ...(NATS && { binary: NATS }) });
  });
  afterAll(async () => {
    await nats?.stop();
  });

  // A fresh bucket per test is a fresh store.
  kvContract('NatsKV', async () => ({ kv: await NatsKV.connect({ url: nats.url(`contract-${++buckets}`) }) }), { time: true, comparePrefix: true });

  it('a TTL is judged on the store clock: the key reads as absent once its write time plus ttlMs is past, not before', async () => {
    const kv = await NatsKV.connect({ url: nats.url(`ttl-${++buckets}`) });
    try {
      const start = Date.now();
      await kv.set('step', 'v', { ttlMs: 400 });
      await kv.compareAndSet('cas', null, 'v', { ttlMs: 400 });
      // An append keeps the key's expiry, as Redis APPEND keeps a TTL.
      await kv.set('joined', 'a', { ttlMs: 400 });
      expect(await kv.append('joined', 'b')).toBe(2);
      expect([await kv.get('step'), await kv.get('cas'), await kv.get('joined')]).toEqual(['v', 'v', 'ab']);
      const all = async (): Promise<boolean> => (await Promise.all(['step', 'cas', 'joined'].map((k) => kv.get(k)))).every((v) => v === null);
      await waitFor(all, { what: 'the keys with a TTL to expire', timeoutMs: 5000, everyMs: 20 });
      expect(Date.now() - start).toBeGreaterThanOrEqual(400);
      // An expired key is absent for every operation: create-if-absent succeeds.
      expect((await kv.compareAndSet('step', null, 'again')).swapped).toBe(true);
      expect(await kv.delete('cas')).toBe(false);
    } finally {
      await kv.close();
    }
  });

  it('stamps and time() read the same clock: the JetStream timestamps of the writes', async () => {
    const kv = await NatsKV.connect({ url: nats.url(`clock-${++buckets}`) });
    try {
      const before = await kv.time();
      const res = await kv.compareAndSet('hb', null, 'at @NOW@', { stampToken: '@NOW@' });
      const after = await kv.time();
      expect(res.time).toBeGreaterThanOrEqual(before);
      expect(res.time).toBeLessThanOrEqual(after);
      expect(await kv.get('hb')).toBe(`at ${res.time}`);
      expect(Math.abs(before - Date.now())).toBeLessThan(1000); // the same machine's clock
    } finally {
      await kv.close();
    }
  });

  it('concurrent compare-and-sets from two clients: exactly one wins', async () => {
    const url = nats.url(`race-${++buckets}`);
    const [a, b] = await Promise.all([NatsKV.connect({ url }), NatsKV.connect({ url })]);
    try {
      const results = await Promise.all([a, b, a, b].map((kv, i) => kv.compareAndSet('leader 0', null, `n${i}`)));
      expect(results.filter((r) => r.swapped)).toHaveLength(1);
      const appends = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).append('join', ` ${i}`)));
      expect(new Set(appends).size).toBe(20);
      expect((await a.get('join'))!.trim().split(' ').sort()).toEqual(Array.from({ length: 20 }, (_, i) => String(i)).sort());
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a server restart: StoreUnavailableError at once while it is down, then the same data, with at most a few connection attempts a second', async () => {
    const logger = new MemoryLogger();
    const kv = await NatsKV.connect({ url: nats.url(`restart-${++buckets}`), commandTimeoutMs: 500, logger });
    try {
      await kv.set('k', 'v');
      await nats.kill();
      await waitFor(async () => StoreUnavailableError.is(await kv.get('k').catch((e: unknown) => e)), { what: 'NatsKV to report the store unavailable', timeoutMs: 5000 });
      const start = Date.now();
      const error = await kv.set('k', 'w').catch((e: unknown) => e);
      expect(StoreUnavailableError.is(error)).toBe(true);
      expect(Date.now() - start).toBeLessThan(100); // nothing is queued: disconnected fails at once
      // No connection storm: a listener on the server's port that accepts and never answers (a
      // hung server) counts the client's attempts for 2 s.
      const hung = await countConnections(nats.port, 2000, 'hang');
      // And one that closes every connection at once: the client spaces its dials (connectSpacing: up to 500 ms).
      const dropped = await countConnections(nats.port, 2000, 'drop');
      expect(hung).toBeGreaterThan(0);
      expect(dropped).toBeGreaterThan(0);
      // A few a second at most: 2 to 2.7 once the spacing reaches its cap, a few more in the first second.
      expect(hung).toBeLessThanOrEqual(8);
      expect(dropped).toBeLessThanOrEqual(8);
      console.info(`nats: connection attempts in 2 s: ${hung} to a hung server, ${dropped} to one that drops them`);
      await nats.restart();
      const healed = await waitFor(async () => (await kv.get('k').catch(() => undefined)) === 'v', { what: 'NatsKV to serve again', timeoutMs: 10_000 });
      expect(healed).toBeLessThan(5000);
      const messages = logger.entries.map((e) => e.message);
      expect(messages.filter((m) => m === 'nats: connection lost, reconnecting')).toHaveLength(1);
      expect(messages).toContain('nats: connected again');
    } finally {
      await kv.close();
    }
  });

  it('a frozen server (SIGSTOP): each operation fails as timedOut within commandTimeoutMs, and serves again once thawed', async () => {
    const kv = await NatsKV.connect({ url: nats.url(`freeze-${++buckets}`), commandTimeoutMs: 300 });
    try {
      await kv.set('k', 'v');
      await nats.freeze();
      const start = Date.now();
      const error = await kv.get('k').catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'KV_STORE_UNAVAILABLE', timedOut: true });
      expect(Date.now() - start).toBeLessThan(1300);
    } finally {
      nats.thaw();
    }
    try {
      await waitFor(async () => (await kv.get('k').catch(() => undefined)) === 'v', { what: 'NatsKV to serve again', timeoutMs: 10_000 });
    } finally {
      await kv.close();
    }
  });

  it('an unreachable server: connect fails with StoreUnavailableError within connectTimeoutMs', async () => {
    const start = Date.now();
    const error = await NatsKV.connect({ url: 'nats://127.0.0.1:1/b', connectTimeoutMs: 600 }).catch((e: unknown) => e);
    expect(StoreUnavailableError.is(error)).toBe(true);
    expect(Date.now() - start).toBeLessThan(2000);
  });
});

/**
 * Accepts connections on `port` for `ms`, and resolves with how many came: `hang` never answers
 * (a hung server), `drop` closes each at once.
 */
async function countConnections(port: number, ms: number, mode: 'hang' | 'drop'): Promise<number> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    if (mode === 'drop') socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => setTimeout(resolve, ms));
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  return sockets.length;
}

describe('NatsKV credentials', () => {
  it('a user and password: the right ones connect, wrong ones are StoreAccessError', async () => {
    const nats = await LocalNats.start({ ...(NATS && { binary: NATS }), auth: { user: 'app', password: 'app-pw' } });
    try {
      const kv = await NatsKV.connect({ url: nats.url('auth') });
      await kv.set('k', 'v');
      expect(await kv.get('k')).toBe('v');
      await kv.close();
      const wrong = await NatsKV.connect({ url: nats.url('auth', false), username: 'app', password: 'nope', connectTimeoutMs: 2000 }).catch((e: unknown) => e);
      expect(StoreAccessError.is(wrong)).toBe(true);
    } finally {
      await nats.stop();
    }
  });

  it('a token: the right one connects, none is StoreAccessError', async () => {
    const nats = await LocalNats.start({ ...(NATS && { binary: NATS }), auth: { token: 's3cret-token' } });
    try {
      const kv = await NatsKV.connect({ url: nats.url('auth') });
      expect(await kv.exchange('k', 'v')).toBeNull();
      await kv.close();
      const none = await NatsKV.connect({ url: nats.url('auth', false), connectTimeoutMs: 2000 }).catch((e: unknown) => e);
      expect(StoreAccessError.is(none)).toBe(true);
      expect(String((none as Error).message)).not.toContain('s3cret');
    } finally {
      await nats.stop();
    }
  });
});

describe('NatsKV on a 3-server JetStream cluster (replicas 3)', () => {
  let cluster: LocalNatsCluster;

  beforeAll(async () => {
    cluster = await LocalNatsCluster.start({ ...(NATS && { binary: NATS }) });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  for (const [what, kill] of [
    ['the stream leader', (c: LocalNatsCluster) => c.killStreamLeader('KV_failover-stream')],
    ['the meta leader', (c: LocalNatsCluster) => c.killMetaLeader()],
  ] as const) {
    it(`losing ${what}: operations fail with a typed StoreUnavailableError, then the data is served again`, async () => {
      const bucket = what === 'the stream leader' ? 'failover-stream' : 'failover-meta';
      const kv = await NatsKV.connect({ url: cluster.url(bucket, 3), commandTimeoutMs: 500, connectTimeoutMs: 10_000 });
      try {
        await kv.set('k', 'v');
        const leaders = { stream: await cluster.streamLeader(`KV_${bucket}`), meta: await cluster.metaLeader() };
        const killed = await kill(cluster);
        const started = Date.now();
        const errors: unknown[] = [];
        let value: string | null | undefined;
        await waitFor(
          async () => {
            value = await kv.compareAndSet('k', 'v', 'v').then(
              () => kv.get('k'),
              (e: unknown) => {
                errors.push(e);
                return undefined;
              },
            );
            return value === 'v';
          },
          { what: `NatsKV to serve again after losing ${what}`, timeoutMs: 20_000, everyMs: 50 },
        );
        // Every failure on the way was typed: no raw nats.js error reaches the caller.
        for (const error of errors) expect(StoreUnavailableError.is(error), String(error)).toBe(true);
        const both = leaders.stream === leaders.meta ? ' (it led both the stream and the meta group)' : '';
        console.info(`nats cluster, ${what} killed${both}: served again after ${Date.now() - started} ms, ${errors.length} failed attempts`);
        // The next test needs three servers again; after the last one the cluster is stopped anyway.
        if (what === 'the stream leader') await cluster.restart(killed);
      } finally {
        await kv.close();
      }
    }, 60_000);
  }
});

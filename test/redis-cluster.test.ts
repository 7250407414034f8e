import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompoundKey, KeyUnavailableError, StoreUnavailableError, readWindow, writeMoving } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { startRedisCluster, type RedisClusterTestNode, type RedisTestCluster } from './support/redis.js';
import { waitFor } from '@roster/testing';

/** How long an operation on a key whose shard is dead may take to fail (measured: ~0.1–0.25 s). */
const DEAD_SHARD_BOUND_MS = 3000;

/** Settles `promise` and says how long it took. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = performance.now();
  const [result] = await Promise.allSettled([promise]);
  return { ms: performance.now() - started, result: result! };
}

function rejectionOf<T>(result: PromiseSettledResult<T>): unknown {
  expect(result.status).toBe('rejected');
  return (result as PromiseRejectedResult).reason;
}

/** Polls `op` until it resolves, for at most `timeoutMs`; returns its value. */
async function eventually<T>(op: () => Promise<T>, timeoutMs: number): Promise<T> {
  let value: T | undefined;
  await waitFor(async () => ((value = await op()), true), { what: 'the operation to succeed', timeoutMs, everyMs: 100 });
  return value as T;
}

describe('RedisKV on a 3-shard Redis Cluster with one shard down', () => {
  let cluster: RedisTestCluster;
  let kv: RedisKV;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

  // The compound key whose nonce 0 lives on the shard we stop, and nonce 1 on another.
  let base: string;
  let dead: RedisClusterTestNode;
  /** A key on each shard that stays up. */
  let liveKeys: string[];

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    cluster = await startRedisCluster(3);
    kv = await RedisKV.connect({ url: cluster.url, commandTimeoutMs: 500 });

    for (let i = 0; ; i++) {
      const candidate = `roster/test/prod/leader-${i}`;
      const [zero, one] = await Promise.all([cluster.nodeFor(`${candidate} 0`), cluster.nodeFor(`${candidate} 1`)]);
      if (zero !== one) {
        base = candidate;
        dead = zero;
        break;
      }
    }
    const live = cluster.nodes.filter((node) => node !== dead);
    liveKeys = [];
    for (const node of live) {
      for (let i = 0; ; i++) {
        if ((await cluster.nodeFor(`live-${i}`)) === node) {
          liveKeys.push(`live-${i}`);
          break;
        }
      }
    }

    // Everything works while all shards are up.
    await kv.set(`${base} 0`, 'at nonce 0');
    expect(await kv.get(`${base} 0`)).toBe('at nonce 0');

    await dead.stop();
  });

  afterAll(async () => {
    await kv?.close();
    await cluster?.stop();
    process.off('unhandledRejection', onUnhandled);
  });

  it('an operation on a key of the dead shard rejects with KeyUnavailableError, fast', async () => {
    for (const op of [
      () => kv.get(`${base} 0`),
      () => kv.set(`${base} 0`, 'v'),
      () => kv.append(`${base} 0`, ' v'),
      () => kv.take(`${base} 0`),
      () => kv.compareAndSet(`${base} 0`, null, 'v'),
      () => kv.delete(`${base} 0`),
    ]) {
      const { ms, result } = await timed<unknown>(op());
      const error = rejectionOf(result);
      expect(error).toBeInstanceOf(KeyUnavailableError);
      expect(error).toMatchObject({ code: 'KV_KEY_UNAVAILABLE', key: `${base} 0` });
      expect(ms).toBeLessThan(DEAD_SHARD_BOUND_MS);
    }
  });

  it('writeMoving moves the compound key to nonce 1, on a live shard, and succeeds', async () => {
    const key = new CompoundKey(base);
    const { nonce } = await writeMoving(key, (k) => kv.set(k, 'at nonce 1'));
    expect(nonce).toBe(1);
    expect(key.current).toBe(`${base} 1`);
    expect(await kv.get(`${base} 1`)).toBe('at nonce 1');
  });

  it('readWindow finds the value at nonce 1 and reports nonce 0 unavailable', async () => {
    const slots = await readWindow(kv, new CompoundKey(base));
    expect(slots[0]).toMatchObject({ nonce: 0, ok: false });
    expect(KeyUnavailableError.is((slots[0] as { error: unknown }).error)).toBe(true);
    expect(slots[1]).toEqual({ nonce: 1, ok: true, value: 'at nonce 1' });
    for (const slot of slots) {
      if (!slot.ok) expect(KeyUnavailableError.is(slot.error)).toBe(true);
    }
  });

  it('keys on the live shards keep working, for every operation', async () => {
    for (const key of liveKeys) {
      await kv.set(key, 'a');
      expect(await kv.get(key)).toBe('a');
      expect(await kv.append(key, 'b')).toBe(2);
      expect(await kv.compareAndSet(key, 'ab', 'c@T', { stampToken: '@T' })).toMatchObject({ swapped: true });
      expect(await kv.take(key)).toMatch(/^c\d{13}$/);
      expect(await kv.delete(key)).toBe(false);
    }
    expect(await kv.time()).toBeGreaterThan(1_600_000_000_000);
  });

  it('the stopped shard serves its keys again once restarted (empty: no persistence)', async () => {
    await dead.start();
    expect(await eventually(() => kv.get(`${base} 0`), 15_000)).toBeNull();
    await kv.set(`${base} 0`, 'back');
    expect(await kv.get(`${base} 0`)).toBe('back');
  });

  it('a hung shard (SIGSTOP) fails its keys with KeyUnavailableError after commandTimeoutMs; the others keep serving', async () => {
    dead.pause();
    try {
      const { ms, result } = await timed(kv.get(`${base} 0`));
      expect(rejectionOf(result)).toBeInstanceOf(KeyUnavailableError);
      expect((rejectionOf(result) as Error).message).toMatch(/timed out/);
      expect(ms).toBeLessThan(DEAD_SHARD_BOUND_MS);
      for (const key of liveKeys) {
        await kv.set(key, 'still here');
        expect(await kv.get(key)).toBe('still here');
      }
    } finally {
      dead.resume();
    }
    expect(await eventually(() => kv.get(`${base} 0`), 15_000)).toBe('back');
  });

  it('with every shard down, operations reject with StoreUnavailableError and nothing hangs', async () => {
    await Promise.all(cluster.nodes.map((node) => node.crash()));
    const settled = await eventually(async () => {
      const { ms, result } = await timed(kv.get(liveKeys[0]!));
      expect(ms).toBeLessThan(DEAD_SHARD_BOUND_MS);
      const error = rejectionOf(result);
      if (!StoreUnavailableError.is(error)) {
        // Just after the crash the client may still see one shard gone, not the store.
        expect(error).toBeInstanceOf(KeyUnavailableError);
        throw error;
      }
      return error;
    }, 10_000);
    expect(settled).toBeInstanceOf(StoreUnavailableError);
    const { ms, result } = await timed(kv.time());
    expect(rejectionOf(result)).toBeInstanceOf(StoreUnavailableError);
    expect(ms).toBeLessThan(DEAD_SHARD_BOUND_MS);
  });

  it('a whole cluster restarted (empty) is used again without reconnecting by hand', async () => {
    await Promise.all(cluster.nodes.map((node) => node.start()));
    await eventually(() => kv.set(`${base} 0`, 'again'), 20_000);
    expect(await kv.get(`${base} 0`)).toBe('again');
    for (const key of liveKeys) expect(await eventually(() => kv.get(key), 5000)).toBeNull();
    expect(unhandled).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { KeyUnavailableError, StoreUnavailableError, type Logger } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { startRedisCluster, type RedisTestCluster } from './support/redis.js';

/** Collects the messages logged at warn and above. */
function warnings(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const quiet = (): void => {};
  const keep = (_fields: object, message: string): void => void lines.push(message);
  return { lines, logger: { debug: quiet, info: quiet, warn: keep, error: keep } as unknown as Logger };
}

async function settle<T>(promise: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now();
  try {
    await promise;
    return { ms: performance.now() - started, error: undefined };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

let cluster: RedisTestCluster | undefined;
let kv: RedisKV | undefined;
afterEach(async () => {
  await kv?.close();
  await cluster?.stop();
  kv = undefined;
  cluster = undefined;
});

describe('RedisKV remembers which cluster masters are down', () => {
  it('a killed master: its keys fail at once with KeyUnavailableError after the first refusal, one warning each way, served again once it is back', async () => {
    cluster = await startRedisCluster(3);
    const log = warnings();
    kv = await RedisKV.connect({ url: cluster.url, commandTimeoutMs: 500, logger: log.logger });
    const key = 'health 0';
    const master = await cluster.nodeFor(key);
    await master.crash();
    const first = await settle(kv.get(key));
    expect(KeyUnavailableError.is(first.error)).toBe(true);
    const later = await Promise.all(Array.from({ length: 20 }, () => settle(kv!.get(key))));
    for (const r of later) expect(KeyUnavailableError.is(r.error)).toBe(true);
    // Refused locally, without a round trip: a few ms, well under the command timeout (500 ms) that
    // a real attempt on a dead master would wait, even on a loaded machine.
    expect(Math.min(...later.map((r) => r.ms))).toBeLessThan(250);
    expect(log.lines).toEqual(['redis: cluster node is down; failing its keys fast']);

    await master.start();
    for (let i = 0; ; i++) {
      const r = await settle(kv.set(key, 'back'));
      if (r.error === undefined) break;
      if (i > 100) throw new Error(`never served again: ${String(r.error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await kv.get(key)).toBe('back');
    expect(log.lines).toEqual(['redis: cluster node is down; failing its keys fast', 'redis: cluster node is back']);
  });

  it('a frozen master: two timeouts mark it down, then its keys fail at once; the other masters keep serving', async () => {
    cluster = await startRedisCluster(3);
    kv = await RedisKV.connect({ url: cluster.url, commandTimeoutMs: 200 });
    const key = 'health 0';
    const master = await cluster.nodeFor(key);
    let other = 'health 1';
    for (let i = 1; (await cluster.nodeFor(other)) === master; i++) other = `health ${i}`;
    master.pause();
    try {
      for (let i = 0; i < 2; i++) expect(KeyUnavailableError.is((await settle(kv.get(key))).error)).toBe(true);
      const later = await Promise.all(Array.from({ length: 10 }, () => settle(kv!.get(key))));
      for (const r of later) expect(KeyUnavailableError.is(r.error)).toBe(true);
      // Refused locally (probes run in the background), well under the command timeout (200 ms).
      expect(Math.min(...later.map((r) => r.ms))).toBeLessThan(100);
      await kv.set(other, 'ok');
      expect(await kv.get(other)).toBe('ok');
    } finally {
      master.resume();
    }
  });

  it('a frozen master marked down: no operation on its keys waits for the probe (probes run in the background); a resumed master is served again', async () => {
    cluster = await startRedisCluster(3);
    const log = warnings();
    kv = await RedisKV.connect({ url: cluster.url, commandTimeoutMs: 400, logger: log.logger });
    const key = 'health 0';
    const master = await cluster.nodeFor(key);
    master.pause();
    try {
      for (let i = 0; i < 2; i++) await settle(kv.get(key));
      // 2 s spans several probe back-offs (100 ms doubling to 1 s): a probe that rode on an
      // operation would hold that operation for the whole 400 ms command timeout.
      const results: { ms: number; error: unknown }[] = [];
      const started = performance.now();
      while (performance.now() - started < 2000) {
        results.push(await settle(kv.get(key)));
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      for (const r of results) expect(KeyUnavailableError.is(r.error)).toBe(true);
      expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(200);
    } finally {
      master.resume();
    }
    let served = false;
    for (let i = 0; i < 60 && !served; i++) {
      served = (await settle(kv.set(key, 'back'))).error === undefined;
      if (!served) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(served).toBe(true);
    expect(log.lines).toEqual(['redis: cluster node is down; failing its keys fast', 'redis: cluster node is back']);
  });

  it('every master down is the store’s failure: StoreUnavailableError', async () => {
    cluster = await startRedisCluster(3);
    kv = await RedisKV.connect({ url: cluster.url, commandTimeoutMs: 300 });
    const keys = ['a 0', 'b 0', 'c 0', 'd 0', 'e 0', 'f 0', 'g 0', 'h 0'];
    for (const node of cluster.nodes) await node.crash();
    let last: unknown;
    for (let round = 0; round < 3; round++) for (const k of keys) last = (await settle(kv.get(k))).error;
    expect(StoreUnavailableError.is(last)).toBe(true);
  });
});

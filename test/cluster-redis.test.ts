import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createCluster, type Cluster } from '@roster/cluster';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { waitFor } from '@roster/testing';

/** `@roster/cluster` with a store URL as registry, on a real redis-server and the real clock. */
const I = 100;
const T = 600;

let redis: RedisTestServer;
const handles: Cluster[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const h of handles) h.destroy();
  await redis?.stop();
});

function until(predicate: () => boolean, limitMs: number, what: string): Promise<number> {
  return waitFor(predicate, { what, timeoutMs: limitMs, everyMs: 10 });
}

describe('@roster/cluster on a real redis-server', () => {
  it('instances given the store URL connect on join, agree on one balance, and close their connection on leave', async () => {
    const key = `lib-${Math.random().toString(36).slice(2, 8)}`;
    const make = (id: string, threads: number) => {
      const h = createCluster({ group: key, env: 'dev', id, threads, store: redis.url, intervalMs: I, timeoutMs: T });
      handles.push(h);
      return h;
    };
    const a = make('a', 2);
    const b = make('b', 3);
    expect(await a.join()).toEqual({ index: 0, threads: 2, total: 2 });
    await b.join();
    await until(() => a.total === 5 && b.total === 5, 10 * T, 'total 5');
    expect([a.index, b.index]).toEqual([0, 2]);
    expect(a.leader?.id).toBe('a');
    const underTwo = [a.generation!, b.generation!];

    await b.leave();
    await until(() => a.total === 2, 10 * I + 1000, 'a alone');
    for (const g of underTwo) expect(a.generation! > g).toBe(true);
    expect(b.generation).toBeUndefined();
    await a.leave();
    const admin = new Redis(redis.url);
    try {
      const clients = String(await admin.call('CLIENT', 'LIST')).trim().split('\n');
      expect(clients).toHaveLength(1); // only this admin connection: both handles closed theirs
    } finally {
      admin.disconnect();
    }
  });
});

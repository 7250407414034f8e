/**
 * Resource limits on a real redis-server: a huge value in any key never enters the process (the
 * size is checked on the server, before anything is sent), and a flood of ids in the join key
 * does not starve the leader.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createNode, type RosterNode } from '@roster/election';
import { RosterError, ValueTooLargeError } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { MemoryLogger } from '@roster/testing';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { waitFor } from '@roster/testing';

const MiB = 1024 * 1024;
const I = 100;
const T = 600;

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

/** Bytes the server has sent to all its clients so far (`INFO stats` total_net_output_bytes). */
async function serverOutputBytes(): Promise<number> {
  const info = await raw.info('stats');
  return Number(/total_net_output_bytes:(\d+)/.exec(info)![1]);
}

function until(predicate: () => boolean, limitMs: number, what: string): Promise<number> {
  return waitFor(predicate, { what, timeoutMs: limitMs, everyMs: 10 });
}

describe('a 100 MB value in a key', () => {
  it('is refused by get, take and compareAndSet with ValueTooLargeError, and never leaves the server', async () => {
    const kv = await RedisKV.connect({ url: redis.url });
    try {
      await raw.set('huge', Buffer.alloc(100 * MiB, 'x'));
      const before = await serverOutputBytes();
      const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;

      const read = await kv.get('huge').catch((e: unknown) => e);
      expect(read).toBeInstanceOf(ValueTooLargeError);
      expect(read).toMatchObject({ code: 'KV_VALUE_TOO_LARGE', key: 'huge', bytes: 100 * MiB, limit: MiB });
      await expect(kv.compareAndSet('huge', 'x', 'y')).rejects.toMatchObject({ code: 'KV_VALUE_TOO_LARGE', bytes: 100 * MiB });
      await expect(kv.take('huge')).rejects.toMatchObject({ code: 'KV_VALUE_TOO_LARGE', bytes: 100 * MiB });

      // Three refusals and one INFO reply: a few kilobytes went over the wire, not 100 MB.
      expect((await serverOutputBytes()) - before).toBeLessThan(64 * 1024);
      const heapAfter = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
      expect(heapAfter - heapBefore).toBeLessThan(50 * MiB);
      // take deleted it all the same: a taken key is always consumed.
      expect(await raw.exists('huge')).toBe(0);
      expect(await kv.get('huge')).toBeNull();
    } finally {
      await kv.close();
    }
  });

  it('a value exactly at the limit is still read whole', async () => {
    const kv = await RedisKV.connect({ url: redis.url, maxValueBytes: 4096 });
    try {
      await raw.set('edge', 'y'.repeat(4096));
      expect(await kv.get('edge')).toBe('y'.repeat(4096));
      await raw.set('edge', 'y'.repeat(4097));
      await expect(kv.get('edge')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_VALUE_TOO_LARGE'));
    } finally {
      await kv.close();
    }
  });
});

class Pair {
  readonly env = `e${Math.random().toString(36).slice(2, 8)}`;
  readonly nodes: RosterNode[] = [];
  readonly stores: RedisKV[] = [];
  readonly loggers: MemoryLogger[] = [];

  key(name: string): string {
    return `roster/limits/${this.env}/${name}`;
  }

  async add(id: string): Promise<RosterNode> {
    const kv = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 2000 });
    const logger = new MemoryLogger();
    const node = createNode({ store: kv, group: 'limits', env: this.env, id, intervalMs: I, timeoutMs: T, logger });
    this.stores.push(kv);
    this.loggers.push(logger);
    this.nodes.push(node);
    await node.start();
    return node;
  }

  async close(): Promise<void> {
    for (const n of this.nodes) n.destroy();
    await Promise.all(this.stores.map((s) => s.close()));
  }
}

describe('a leader under junk in its keys', () => {
  it('100 MB planted in every other nonce of the leader, join and era keys: the leader keeps leading and admits a new node', async () => {
    const c = new Pair();
    try {
      const a = await c.add('a');
      await until(() => a.isLeader(), 10 * T, 'a leads');
      const huge = Buffer.alloc(100 * MiB, 'z');
      for (const name of ['leader 3', 'join 0', 'join 1', 'era 2', 'id/b 1']) await raw.set(c.key(name), huge);
      const before = await serverOutputBytes();

      const b = await c.add('b');
      await until(() => a.isLeader() && b.leader?.id === 'a' && a.memberIds.join() === 'a,b' && b.memberIds.join() === 'a,b', 20 * T, 'b admitted');
      await delay(5 * I);
      expect(a.isLeader()).toBe(true);
      // Several polls of every junk key: the 100 MB values never crossed the wire.
      expect((await serverOutputBytes()) - before).toBeLessThan(8 * MiB);
    } finally {
      await c.close();
      for (const name of ['leader 3', 'join 0', 'join 1', 'era 2', 'id/b 1']) await raw.del(`roster/limits/${c.env}/${name}`);
    }
  });

  it('100,000 junk ids appended to the join key (over the 1 MiB cap): the leader keeps leading and admits a valid node within a few intervals', async () => {
    const c = new Pair();
    try {
      const a = await c.add('a');
      await until(() => a.isLeader(), 10 * T, 'a leads');
      const junk = Array.from({ length: 100_000 }, (_, i) => ` junk-${i.toString().padStart(6, '0')}`).join('');
      expect(junk.length).toBeGreaterThan(MiB);
      for (let n = 0; n < 4; n++) await raw.append(c.key(`join ${n}`), junk);

      const started = performance.now();
      const b = await c.add('b');
      await until(() => a.memberIds.join() === 'a,b' && b.memberIds.join() === 'a,b', 30 * T, 'b admitted');
      expect(performance.now() - started).toBeLessThan(30 * T);
      expect(a.isLeader()).toBe(true);
      expect(a.memberIds.some((id) => id.startsWith('junk-'))).toBe(false);
    } finally {
      await c.close();
    }
  });

  it('500,000 copies of one id within the 1 MiB cap in a join nonce: the cluster settles on one leader and admits a valid node', async () => {
    const c = new Pair();
    try {
      const a = await c.add('a');
      await until(() => a.isLeader(), 10 * T, 'a leads');
      await raw.append(c.key('join 0'), ' x'.repeat(500_000));

      const b = await c.add('b');
      // The poll of 500,000 tokens may hold the leader's event loop long enough to cost it its lease.
      const settled = (): boolean => [a, b].filter((n) => n.isLeader()).length === 1 && [a, b].every((n) => n.memberIds.join() === 'a,b');
      await until(settled, 30 * T, 'one leader, members a and b');
    } finally {
      await c.close();
    }
  });

  it('100,000 unparseable tokens in the join key are dropped; the leader keeps leading and admits a valid node', async () => {
    const c = new Pair();
    try {
      const a = await c.add('a');
      await until(() => a.isLeader(), 10 * T, 'a leads');
      await raw.append(c.key('join 0'), ' !bad'.repeat(100_000));

      const b = await c.add('b');
      await until(() => a.memberIds.join() === 'a,b' && b.memberIds.join() === 'a,b', 30 * T, 'b admitted');
      expect(a.isLeader()).toBe(true);
      expect(await raw.exists(c.key('join 0'))).toBe(0);
    } finally {
      await c.close();
    }
  });
});

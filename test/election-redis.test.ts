import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as delay } from 'node:timers/promises';
import { createNode, type RosterNode } from '@roster/election';
import { RedisKV } from '@roster/kv-adapter/redis';
import { MemoryLogger } from '@roster/testing';
import { startRedis } from './support/redis.js';

/** The protocol's scenarios on a real redis-server and the real clock, with generous bounds. */
const I = 100;
const T = 600;

let redis: Awaited<ReturnType<typeof startRedis>>;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

class RealCluster {
  readonly nodes: RosterNode[] = [];
  readonly stores: RedisKV[] = [];
  readonly env = `e${Math.random().toString(36).slice(2, 8)}`;

  async add(id: string): Promise<RosterNode> {
    const kv = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 1000 });
    this.stores.push(kv);
    const node = createNode({ store: kv, group: 'redis-spec', env: this.env, id, intervalMs: I, timeoutMs: T, logger: new MemoryLogger() });
    this.nodes.push(node);
    await node.start();
    return node;
  }

  live(): RosterNode[] {
    return this.nodes.filter((n) => n.state === 'running');
  }

  leaders(): RosterNode[] {
    return this.live().filter((n) => n.isLeader());
  }

  converged(): boolean {
    const live = this.live();
    const leaders = live.filter((n) => n.isLeader());
    if (leaders.length !== 1) return false;
    const want = live.map((n) => n.id).sort().join(',');
    return live.every((n) => n.leader?.id === leaders[0]!.id && n.memberIds.join(',') === want);
  }

  async until(predicate: () => boolean, limitMs: number, what: string): Promise<number> {
    const start = performance.now();
    while (!predicate()) {
      if (performance.now() - start > limitMs) throw new Error(`${what}: not within ${limitMs} ms`);
      await delay(10);
    }
    return performance.now() - start;
  }

  async close(): Promise<void> {
    for (const n of this.nodes) n.destroy();
    await Promise.all(this.stores.map((s) => s.close()));
  }
}

describe('the protocol on a real redis-server', () => {
  it('a lone node leads, then three nodes converge on one leader and the full member list', async () => {
    const c = new RealCluster();
    try {
      await c.add('a');
      await c.until(() => c.converged(), 10 * T, 'lone leader');
      await c.add('b');
      await c.add('c');
      await c.until(() => c.converged(), 10 * T, 'three converge');
      expect(c.leaders()).toHaveLength(1);
    } finally {
      await c.close();
    }
  });

  it('a crashed leader is replaced by one with a higher fencing token', async () => {
    const c = new RealCluster();
    try {
      for (const id of ['a', 'b', 'c']) await c.add(id);
      await c.until(() => c.converged(), 10 * T, 'converge');
      const old = c.leaders()[0]!;
      const token = old.leader!.token;
      old.destroy();
      const took = await c.until(() => c.converged(), 10 * T, 'failover');
      expect(c.leaders()[0]!.leader!.token).toBeGreaterThan(token);
      expect(took).toBeLessThan(T + 2 * I + 2000);
    } finally {
      await c.close();
    }
  });

  it('a crashed follower is removed after the timeout; a leaving one at once', async () => {
    const c = new RealCluster();
    try {
      for (const id of ['a', 'b', 'c', 'd']) await c.add(id);
      await c.until(() => c.converged(), 10 * T, 'converge');
      const [crash, leave] = c.live().filter((n) => !n.isLeader());
      crash!.destroy();
      await c.until(() => c.converged(), 10 * T, 'crashed follower removed');
      const stopping = leave!.stop();
      const took = await c.until(() => c.live().every((n) => !n.memberIds.includes(leave!.id)), 10 * T, 'leaver removed');
      await stopping;
      expect(took).toBeLessThan(T);
    } finally {
      await c.close();
    }
  });

  it('a resigning leader says goodbye and is replaced well before the timeout', async () => {
    const c = new RealCluster();
    try {
      for (const id of ['a', 'b', 'c']) await c.add(id);
      await c.until(() => c.converged(), 10 * T, 'converge');
      const old = c.leaders()[0]!;
      const stopping = old.stop();
      const took = await c.until(() => c.leaders().length === 1 && !c.leaders().includes(old), 10 * T, 'new leader');
      await stopping;
      expect(took).toBeLessThan(T);
    } finally {
      await c.close();
    }
  });

  it('garbage written into the leader key is ignored', async () => {
    const c = new RealCluster();
    try {
      for (const id of ['a', 'b']) await c.add(id);
      await c.until(() => c.converged(), 10 * T, 'converge');
      const leader = c.leaders()[0]!;
      await c.stores[0]!.set(`roster/redis-spec/${c.env}/leader 2`, '999 zz top');
      await delay(3 * T);
      expect(c.leaders()).toEqual([leader]);
      // The leader reads the whole window every interval and sees the garbage; followers poll the
      // leader's nonce only, and meet it only on a full scan. Nobody adopts it.
      expect(leader.stats.garbage ?? 0).toBeGreaterThan(0);
      for (const n of c.live()) expect(n.leader?.id).toBe(leader.id);
    } finally {
      await c.close();
    }
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '@roster/testing';
import { createCluster, type ClusterUpdate, type RebalanceUpdate } from '../src/index.js';

describe('static clustering (no store at all)', () => {
  it('join() reports the configured base index and total at once, before it resolves', async () => {
    const seen: RebalanceUpdate[] = [];
    const cluster = createCluster({ group: 'app', id: 'node3', threads: 4, static: { index: 3, total: 7 }, onRebalance: (u) => seen.push(u) });
    expect(cluster.mode).toBe('static');
    expect(cluster.balance).toEqual({ index: -1, threads: 4, total: 0 });
    const joining = cluster.join();
    expect(seen).toHaveLength(1);
    expect(await joining).toEqual({ index: 3, threads: 4, total: 7 });
    expect(seen[0]).toEqual({
      type: 'rebalance',
      index: 3,
      threads: 4,
      total: 7,
      previous: { index: -1, total: 0 },
      instances: [{ id: 'node3', threads: 4, index: 3 }],
      generation: undefined,
    });
    expect(cluster.env).toBe('production');
    expect(cluster.node).toBeUndefined();
    await cluster.leave();
    expect(seen.at(-1)).toMatchObject({ index: -1, threads: 4, total: 7, previous: { index: 3, total: 7 } });
    expect(cluster.state).toBe('left');
  });

  it('typed events, watch() and the async iterator see the same updates; the iterator ends after `left`', async () => {
    const cluster = createCluster({ group: 'app', env: 'dev', id: 'a', static: { index: 0, total: 1 } });
    const byOn: number[] = [];
    const byWatch: ClusterUpdate['type'][] = [];
    cluster.on('rebalance', (u) => byOn.push(u.index));
    cluster.watch((u) => byWatch.push(u.type));
    const iterated: ClusterUpdate['type'][] = [];
    const reading = (async () => {
      for await (const u of cluster) iterated.push(u.type);
    })();
    await cluster.join();
    await cluster.leave();
    await reading;
    expect(byOn).toEqual([0, -1]);
    expect(byWatch).toEqual(['instances', 'rebalance', 'rebalance', 'left']);
    expect(iterated).toEqual(byWatch);
  });

  it('a listener that throws is logged and the others still run', async () => {
    const logger = new MemoryLogger();
    const cluster = createCluster({ group: 'app', static: { index: 0, total: 2 }, logger });
    cluster.on('rebalance', () => {
      throw new Error('boom');
    });
    let called = false;
    cluster.on('rebalance', () => (called = true));
    await cluster.join();
    expect(called).toBe(true);
    expect(logger.entries.some((e) => e.level === 'error' && e.message === 'a watch function threw')).toBe(true);
    await cluster.leave();
  });

  it('await using leaves the cluster on scope exit', async () => {
    const types: string[] = [];
    {
      await using cluster = createCluster({ group: 'app', static: { index: 1, total: 2 } });
      cluster.watch((u) => types.push(u.type));
      await cluster.join();
    }
    expect(types.at(-1)).toBe('left');
  });

  it('join() after leave() rejects with CLUSTER_LEFT; leave() is idempotent', async () => {
    const cluster = createCluster({ group: 'app', static: { index: 0, total: 1 } });
    await cluster.join();
    await Promise.all([cluster.leave(), cluster.leave()]);
    await expect(cluster.join()).rejects.toMatchObject({ code: 'CLUSTER_LEFT' });
  });
});

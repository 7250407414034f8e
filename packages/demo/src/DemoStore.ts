import { MemoryKV, type KV } from '@roster/kv-adapter';
import { LocalRedis, LocalRedisCluster, findRedisServer } from '@roster/testing';
import type { WorkerStore } from './messages.js';

/**
 * Which store the demo brings up: a real `redis-server`, a local Redis Cluster of 3 masters with a
 * replica each (`cluster`), the in-process one, or whichever of the first and the last is possible.
 */
export type DemoStoreKind = 'auto' | 'redis' | 'cluster' | 'memory';

/** The store the demo started, shared by its nodes. */
export interface DemoStore {
  /** What it is, for the screen: `"redis-server (/usr/bin/redis-server) at redis://127.0.0.1:40217"`. */
  readonly description: string;
  /** How a worker reaches it. */
  readonly worker: WorkerStore;
  /** The in-process store that workers reach over IPC; `undefined` for Redis. */
  readonly kv: KV | undefined;
  /** The `redis-server` process id, for Redis. */
  readonly pid: number | undefined;
  /** The Redis Cluster, for `cluster`: its masters can be failed over, resharded, killed and restarted. */
  readonly cluster?: LocalRedisCluster;
  /** Stops what was started. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Brings up the demo's store: the system's `redis-server` (@roster/testing's `findRedisServer`:
 * `$REDISMS_SYSTEM_BINARY`, `$ROSTER_REDIS_SERVER`, else the first on `PATH`) on a free loopback
 * port as @roster/testing's `LocalRedis` (`kind` `"redis"`, or `"auto"` when one is installed), a
 * Redis Cluster of that binary with 3 masters and a replica each, `cluster-node-timeout` 1 s (`"cluster"`, see {@link LocalRedisCluster}:
 * a killed master's replica takes over within a few seconds), else a `MemoryKV` in this process
 * that the workers reach over IPC.
 */
export async function startDemoStore(kind: DemoStoreKind, env: Readonly<Record<string, string | undefined>>): Promise<DemoStore> {
  const binary = kind === 'memory' ? undefined : findRedisServer(env);
  if (kind === 'cluster') {
    if (binary === undefined) throw new Error('no redis-server found for a Redis Cluster (install redis-server, or set REDISMS_SYSTEM_BINARY)');
    // A topology change that has not settled within 15 s is reported as failed rather than waited on.
    const cluster = await LocalRedisCluster.start({ binary, masters: 3, replicas: 1, nodeTimeoutMs: 1000, readyTimeoutMs: 15_000 });
    return {
      description: `a Redis Cluster of ${cluster.shards.length} masters with a replica each (${binary}) at ${cluster.url}`,
      worker: { kind: 'redis', url: cluster.url },
      kv: undefined,
      pid: undefined,
      cluster,
      stop: () => cluster.stop(),
    };
  }
  if (binary === undefined) {
    if (kind === 'redis') throw new Error('no redis-server found (install redis-server, or set REDISMS_SYSTEM_BINARY)');
    const kv = new MemoryKV();
    return {
      description: `in-process MemoryKV, shared with the workers over IPC${kind === 'auto' ? ' (no redis-server installed)' : ''}`,
      worker: { kind: 'memory', capabilities: kv.capabilities },
      kv,
      pid: undefined,
      stop: () => kv.close(),
    };
  }
  // Its own process group (the one fixture of the tests, the bench and the demo): a Ctrl-C meant
  // for the demo does not stop the store before the nodes have left.
  const server = await LocalRedis.start({ binary });
  return {
    description: `redis-server (${binary}) at ${server.url}`,
    worker: { kind: 'redis', url: server.url },
    kv: undefined,
    pid: server.pid,
    stop: () => server.stop(),
  };
}

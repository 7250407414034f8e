import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { MemoryKV, type KV } from '@roster/kv-adapter';
import { LocalRedisCluster } from '@roster/kv-adapter/testing';
import { RedisMemoryServer } from 'redis-memory-server';
import type { WorkerStore } from './messages.js';

/**
 * Which store the demo brings up: a real `redis-server`, a local 3-master Redis Cluster
 * (`cluster`), the in-process one, or whichever of the first and the last is possible.
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
  /** The Redis Cluster, for `cluster`: its masters can be killed and restarted. */
  readonly cluster?: LocalRedisCluster;
  /** Stops what was started. Idempotent. */
  stop(): Promise<void>;
}

/**
 * The `redis-server` binary: `$REDISMS_SYSTEM_BINARY`, else `/usr/bin/redis-server`, else the
 * first on `PATH`; `undefined` when there is none.
 */
export function findRedisServer(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const candidates = [env.REDISMS_SYSTEM_BINARY, '/usr/bin/redis-server', ...(env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'redis-server'))];
  return candidates.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

/**
 * Brings up the demo's store: `redis-server` through redis-memory-server on the system binary
 * (`kind` `"redis"`, or `"auto"` when one is installed), a 3-master Redis Cluster of that binary
 * (`"cluster"`, see {@link LocalRedisCluster}), else a `MemoryKV` in this process that
 * the workers reach over IPC.
 */
export async function startDemoStore(kind: DemoStoreKind, env: Readonly<Record<string, string | undefined>>): Promise<DemoStore> {
  const binary = kind === 'memory' ? undefined : findRedisServer(env);
  if (kind === 'cluster') {
    if (binary === undefined) throw new Error('no redis-server found for a Redis Cluster (install redis-server, or set REDISMS_SYSTEM_BINARY)');
    const cluster = await LocalRedisCluster.start({ binary, masters: 3 });
    return {
      description: `a Redis Cluster of ${cluster.shards.length} masters (${binary}) at ${cluster.url}`,
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
  const server = new RedisMemoryServer({
    instance: { ip: '127.0.0.1' },
    binary: { systemBinary: binary },
    // A process group of its own: Ctrl-C must not stop the store before the nodes have left.
    spawn: { detached: true },
  });
  await server.start();
  const url = `redis://127.0.0.1:${await server.getPort()}`;
  const info = server.getInstanceInfo();
  let stopped: Promise<unknown> | undefined;
  return {
    description: `redis-server (${binary}) at ${url}`,
    worker: { kind: 'redis', url },
    kv: undefined,
    pid: info ? info.childProcess?.pid : undefined,
    async stop() {
      stopped ??= server.stop();
      await stopped;
    },
  };
}

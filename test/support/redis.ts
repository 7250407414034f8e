/**
 * Real Redis servers for tests: one server ({@link startRedis}) or a Redis Cluster
 * ({@link startRedisCluster}), each started by the test itself on free loopback ports, in a temp
 * directory under `os.tmpdir()`, and torn down by `stop()`.
 *
 * Every one runs on @roster/testing's local servers (`LocalRedis`, `LocalRedisCluster`,
 * `LocalRedisSentinel`), and so on its one process fixture, `ServerProcess`, as the bench and the
 * demo do. Binaries: `redis-server` is `$REDISMS_SYSTEM_BINARY`, else `$ROSTER_REDIS_SERVER`, else
 * the first `redis-server` on `PATH` (Debian: `/usr/bin/redis-server`): @roster/testing's
 * `findRedisServer`. The cluster is formed by `LocalRedisCluster` itself (no `redis-cli`).
 *
 * Always stop what you start, e.g. in `afterAll`, or in `finally`:
 *
 * ```ts
 * const redis = await startRedis();
 * try {
 *   const kv = await RedisKV.connect({ url: redis.url });
 *   // …
 * } finally {
 *   await redis.stop();
 * }
 * ```
 *
 * Every server is also SIGKILLed when the test process exits (`ServerProcess`), so a crashed test
 * run leaves no server behind.
 */
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { LOOPBACK_HOST, LocalRedis, LocalRedisCluster, LocalRedisSentinel, findRedisServer, type LocalRedisSentinelOptions, type LocalRedisShard } from '@roster/testing';

/** The loopback address every test server binds to. */
export const REDIS_HOST = LOOPBACK_HOST;

// ---------------------------------------------------------------------------------------------
// Binaries

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The `redis-server` binary to use, or `undefined` when none is installed (@roster/testing's `findRedisServer`). */
export function redisServerBinary(): string | undefined {
  return findRedisServer();
}

/** The `redis-cli` binary to use (for the TLS cluster of tlsRedis.ts), or `undefined` when none is installed. */
export function redisCliBinary(): string | undefined {
  if (process.env.ROSTER_REDIS_CLI) return process.env.ROSTER_REDIS_CLI;
  const server = redisServerBinary();
  const beside = server && join(dirname(server), 'redis-cli');
  return beside && existsSync(beside) ? beside : onPath('redis-cli');
}

/** A running `redis-server` started by {@link startRedis}. */
export interface RedisTestServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops the server gracefully (SIGTERM, SIGKILL after 5 s) and removes its temp directory. Idempotent. */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL, as a crash; {@link restart} brings it back. */
  crash(): Promise<void>;
  /** Freezes the server with SIGSTOP: connections stay open, nothing answers. */
  pause(): void;
  /** Undoes {@link pause} with SIGCONT. */
  resume(): void;
  /**
   * Stops the server (when running) and starts it again on the same port. The data is lost, as on
   * a server without persistence, unless `keepData` (then it is `SAVE`d first and reloaded).
   */
  restart(options?: { keepData?: boolean }): Promise<void>;
}

/** Options of {@link startRedis}. */
export interface StartRedisOptions {
  /** Extra `redis-server` arguments, e.g. `['--maxmemory', '1mb']`. */
  readonly args?: readonly string[];
}

/**
 * Starts a `redis-server` on a free loopback port: @roster/testing's `LocalRedis` (no persistence:
 * `--save '' --appendonly no`, its working directory a fresh temp directory).
 *
 * @example
 * ```ts
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 * ```
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisTestServer> {
  const server = await LocalRedis.start({ ...(options.args && { args: options.args }) });
  return {
    url: server.url,
    host: server.host,
    port: server.port,
    stop: () => server.stop(),
    crash: () => server.kill(),
    pause: () => server.pause(),
    resume: () => server.resume(),
    restart: (restartOptions) => server.restart(restartOptions),
  };
}

// ---------------------------------------------------------------------------------------------
// A cluster

/** One node of a cluster started by {@link startRedisCluster}. */
export interface RedisClusterTestNode {
  readonly host: string;
  readonly port: number;
  /** `host:port`. */
  readonly address: string;
  /** True while its process runs. */
  readonly running: boolean;
  /**
   * Stops the node (SIGKILL, as {@link crash}: without persistence a graceful stop differs in
   * nothing the other nodes or the clients see). Its slots stay assigned to it, so their keys
   * become unavailable while the other shards keep serving (`cluster-require-full-coverage no`).
   */
  stop(): Promise<void>;
  /** Kills the node with SIGKILL, as a crash. */
  crash(): Promise<void>;
  /** Starts a stopped node again: it rejoins with its old slots, and no data. Does nothing while it runs. */
  start(): Promise<void>;
  /** Freezes the node with SIGSTOP: connections stay open, nothing answers. */
  pause(): void;
  /** Undoes {@link pause}. */
  resume(): void;
}

/** A Redis Cluster started by {@link startRedisCluster}. */
export interface RedisTestCluster {
  /** The masters, one per shard, in start order. */
  readonly nodes: readonly RedisClusterTestNode[];
  /** `host:port` of every node. */
  readonly urls: readonly string[];
  /** The nodes as one store URL for RedisKV: `"127.0.0.1:p1,127.0.0.1:p2,…"`. */
  readonly url: string;
  /** The node that serves `key` now (asks the cluster with `CLUSTER KEYSLOT` and `CLUSTER SLOTS`). */
  nodeFor(key: string): Promise<RedisClusterTestNode>;
  /** Kills every node and removes the temp directory. Idempotent. */
  stop(): Promise<void>;
}

/** Options of {@link startRedisCluster}. */
export interface StartRedisClusterOptions {
  /**
   * `cluster-node-timeout` in ms: how long before the other nodes flag a dead one as failing.
   * @defaultValue 3000
   */
  readonly nodeTimeoutMs?: number;
  /** How long to wait for the cluster to form. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts a Redis Cluster of `n` masters and no replicas on free loopback ports with kv-adapter's
 * `LocalRedisCluster` (`cluster-require-full-coverage no`, slots split evenly), and resolves once
 * every node reports `cluster_state:ok` and knows all the others. On any failure it kills what it
 * started before rejecting.
 *
 * @example
 * ```ts
 * const cluster = await startRedisCluster(3);
 * try {
 *   const kv = await RedisKV.connect({ url: cluster.url });
 *   await (await cluster.nodeFor('leader 0')).stop(); // that key's shard dies
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 */
export async function startRedisCluster(n = 3, options: StartRedisClusterOptions = {}): Promise<RedisTestCluster> {
  if (!Number.isInteger(n) || n < 3) throw new Error(`startRedisCluster: Redis Cluster needs at least 3 masters, got ${n}`);
  const binary = redisServerBinary();
  if (!binary) throw new Error('startRedisCluster: needs redis-server (apt-get install redis-server, or set ROSTER_REDIS_SERVER)');
  const cluster = await LocalRedisCluster.start({
    binary,
    masters: n,
    ...(options.nodeTimeoutMs !== undefined && { nodeTimeoutMs: options.nodeTimeoutMs }),
    ...(options.readyTimeoutMs !== undefined && { readyTimeoutMs: options.readyTimeoutMs }),
  });
  const nodeOf = new Map<LocalRedisShard, RedisClusterTestNode>();
  for (const shard of cluster.shards) {
    nodeOf.set(shard, {
      host: shard.host,
      port: shard.port,
      address: shard.address,
      get running() {
        return shard.running;
      },
      stop: () => cluster.kill(shard),
      crash: () => cluster.kill(shard),
      start: () => (shard.running ? Promise.resolve() : cluster.restart(shard)),
      pause: () => cluster.pause(shard),
      resume: () => cluster.resume(shard),
    });
  }
  const nodes = [...nodeOf.values()];
  return {
    nodes,
    urls: nodes.map((node) => node.address),
    url: cluster.url,
    nodeFor: async (key) => nodeOf.get(await cluster.shardFor(key))!,
    stop: () => cluster.stop(),
  };
}

// ---------------------------------------------------------------------------------------------
// Redis Sentinel

/**
 * A Redis Sentinel deployment for tests: kv-adapter's `LocalRedisSentinel` (a master, 2 replicas,
 * 3 sentinels, `down-after-milliseconds` 1000) on the same `redis-server` binary, which runs the
 * sentinels too (`--sentinel`: Debian's `redis-sentinel` is that binary). Stop it in `afterAll`.
 */
export async function startRedisSentinel(options: Omit<LocalRedisSentinelOptions, 'binary'> = {}): Promise<LocalRedisSentinel> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('startRedisSentinel: needs redis-server (apt-get install redis-server redis-sentinel, or set ROSTER_REDIS_SERVER)');
  return LocalRedisSentinel.start({ binary, ...options });
}

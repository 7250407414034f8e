/**
 * Real `redis-server` processes for the bench: one server (`LocalRedis`), a Redis Cluster
 * (`LocalRedisCluster`) or a Sentinel deployment (`LocalRedisSentinel`), all @roster/testing's local
 * servers on its one process fixture, as in the tests and the demo. Loopback only, no persistence,
 * temp working directories.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { LocalRedis, LocalRedisCluster, LocalRedisSentinel, type LocalRedisShard } from '@roster/testing';
import { redisServerBinary } from './binaries.js';
import { onSignalCleanup } from './processes.js';

const run = promisify(execFile);

/** Every server of the bench takes this many clients (the scale cases open thousands). */
const MAX_CLIENTS = ['--maxclients', '20000'];

/** One running redis-server. */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** A running Redis Cluster. */
export interface RedisClusterServers {
  readonly masters: readonly LocalRedisShard[];
  /** The seed list as a Roster store URL: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts one redis-server on a free loopback port (`LocalRedis`), not as a cluster of one, since
 * the bench measures a plain server. A Ctrl-C of the bench stops it too.
 */
export async function startRedisServer(): Promise<RedisServer> {
  let server: LocalRedis;
  try {
    server = await LocalRedis.start({ binary: redisServerBinary(), args: MAX_CLIENTS });
  } catch (error) {
    throw new Error(`bench: ${(error as Error).message}`);
  }
  const unregister = onSignalCleanup(() => server.stop());
  return {
    host: server.host,
    port: server.port,
    url: server.url,
    async stop() {
      unregister();
      await server.stop();
    },
  };
}

/** Starts a Redis Cluster of `n` masters (no replicas, `cluster-require-full-coverage no`). */
export async function startRedisCluster(n = 3): Promise<RedisClusterServers> {
  const cluster = await LocalRedisCluster.start({ binary: redisServerBinary(), masters: n, args: MAX_CLIENTS });
  const unregister = onSignalCleanup(() => cluster.stop()); // a Ctrl-C of the bench stops it too
  return {
    masters: cluster.shards,
    url: cluster.url,
    async stop() {
      unregister();
      await cluster.stop();
    },
  };
}

/** A running Redis Sentinel deployment. */
export interface RedisSentinelServers {
  /** `redis+sentinel://127.0.0.1:s1,…/roster`. */
  readonly url: string;
  /** The master's port now, for its counters. */
  masterPort(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts a Redis Sentinel deployment (kv-adapter's `LocalRedisSentinel`): a master, 2 replicas and
 * 3 sentinels, `down-after-milliseconds` 1000.
 */
export async function startRedisSentinel(): Promise<RedisSentinelServers> {
  const sentinel = await LocalRedisSentinel.start({ binary: redisServerBinary(), args: MAX_CLIENTS });
  const unregister = onSignalCleanup(() => sentinel.stop());
  return {
    url: sentinel.url,
    masterPort: async () => (await sentinel.master()).port,
    async stop() {
      unregister();
      await sentinel.stop();
    },
  };
}

/** `redis-server --version`, e.g. `7.0.15`. */
export async function redisVersion(): Promise<string> {
  const { stdout } = await run(redisServerBinary(), ['--version']);
  return /v=([\d.]+)/.exec(stdout)?.[1] ?? stdout.trim();
}

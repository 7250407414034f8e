/**
 * Real `redis-server` processes for the bench: one server, or a Redis Cluster of masters joined
 * with `redis-cli --cluster create`. Loopback only, no persistence, temp working directories.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { redisCliBinary, redisServerBinary } from './binaries.js';
import { HOST, freePort, waitUntil } from './net.js';
import { spawnTracked, terminate, type Tracked } from './processes.js';
import { tempDir } from './tempDir.js';

const run = promisify(execFile);

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
  readonly masters: readonly RedisServer[];
  /** The seed list as a Roster store URL: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Sends one command on a fresh connection. */
export async function redisCommand(port: number, args: readonly (string | number)[], timeoutMs = 5000): Promise<unknown> {
  const client = new Redis({ host: HOST, port, lazyConnect: true, connectTimeout: timeoutMs, commandTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(String(args[0]), ...args.slice(1).map(String));
  } finally {
    client.disconnect();
  }
}

async function startOne(dir: string, extra: readonly string[], alsoFree: readonly number[] = []): Promise<RedisServer> {
  const port = await freePort(alsoFree);
  const args = ['--port', String(port), '--bind', HOST, '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--maxclients', '20000', ...extra];
  const proc: Tracked = spawnTracked(redisServerBinary(), args);
  try {
    await waitUntil(async () => (await redisCommand(port, ['PING'], 500)) === 'PONG', 10_000, `redis-server on port ${port}`, 50);
  } catch (error) {
    await terminate(proc);
    throw new Error(`${(error as Error).message}\n${proc.stderrTail()}`);
  }
  return {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    stop: () => terminate(proc),
  };
}

/** Starts one redis-server on a free loopback port. */
export async function startRedisServer(): Promise<RedisServer> {
  const dir = await tempDir('roster-bench-redis-');
  const server = await startOne(dir.path, []).catch(async (error: unknown) => {
    await dir.remove();
    throw error;
  });
  return {
    ...server,
    async stop() {
      await server.stop();
      await dir.remove();
    },
  };
}

/** Starts `n` (≥ 3) cluster-enabled masters and creates the cluster. */
export async function startRedisCluster(n = 3): Promise<RedisClusterServers> {
  const dir = await tempDir('roster-bench-cluster-');
  const masters: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(masters.map((m) => m.stop()));
    await dir.remove();
  };
  try {
    for (let i = 0; i < n; i++) {
      masters.push(
        await startOne(dir.path, ['--cluster-enabled', 'yes', '--cluster-require-full-coverage', 'no', '--cluster-config-file', join(dir.path, `nodes-${i}.conf`), '--cluster-node-timeout', '3000'], [10_000]),
      );
    }
    await run(redisCliBinary(), ['--cluster', 'create', ...masters.map((m) => `${m.host}:${m.port}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    await waitUntil(
      async () => {
        for (const m of masters) {
          const info = String(await redisCommand(m.port, ['CLUSTER', 'INFO'], 1000));
          if (!/cluster_state:ok/.test(info) || !new RegExp(`cluster_known_nodes:${n}\\b`).test(info)) return false;
        }
        return true;
      },
      30_000,
      'the Redis Cluster to report cluster_state:ok',
      100,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { masters, url: masters.map((m) => `${m.host}:${m.port}`).join(','), stop };
}

/** `redis-server --version`, e.g. `7.0.15`. */
export async function redisVersion(): Promise<string> {
  const { stdout } = await run(redisServerBinary(), ['--version']);
  return /v=([\d.]+)/.exec(stdout)?.[1] ?? stdout.trim();
}

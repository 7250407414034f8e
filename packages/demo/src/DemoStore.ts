import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { MemoryKV, type KV } from '@roster/kv-adapter';
import { LOOPBACK_HOST, LocalRedisCluster, freeLoopbackPort, redisCommand, waitFor } from '@roster/kv-adapter/testing';
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
 * The `redis-server` binary: `$REDISMS_SYSTEM_BINARY`, else `/usr/bin/redis-server`, else the
 * first on `PATH`; `undefined` when there is none.
 */
export function findRedisServer(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const candidates = [env.REDISMS_SYSTEM_BINARY, '/usr/bin/redis-server', ...(env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'redis-server'))];
  return candidates.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

/**
 * Brings up the demo's store: the system's `redis-server` on a free loopback port
 * (`kind` `"redis"`, or `"auto"` when one is installed), a Redis Cluster of that binary with 3
 * masters and a replica each, `cluster-node-timeout` 1 s (`"cluster"`, see {@link LocalRedisCluster}:
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
  const server = await startRedisServer(binary);
  const url = `redis://${LOOPBACK_HOST}:${server.port}`;
  return {
    description: `redis-server (${binary}) at ${url}`,
    worker: { kind: 'redis', url },
    kv: undefined,
    pid: server.pid,
    stop: server.stop,
  };
}

/** A `redis-server` that {@link startRedisServer} started. */
interface RedisServer {
  readonly port: number;
  readonly pid: number | undefined;
  /** SIGTERMs the server (SIGKILL after 5 s) and resolves once it is gone. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `binary` on a free loopback port with nothing persisted, and resolves once it answers
 * PING. It runs in a process group of its own, so that a Ctrl-C meant for the demo does not stop
 * the store before the nodes have left; it is SIGKILLed when this process exits, as a last resort.
 */
async function startRedisServer(binary: string): Promise<RedisServer> {
  const port = await freeLoopbackPort();
  const args = ['--port', String(port), '--bind', LOOPBACK_HOST, '--save', '', '--appendonly', 'no', '--dir', tmpdir()];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const lastResort = (): void => void child.kill('SIGKILL');
  process.once('exit', lastResort);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ended = new AbortController();
  child.once('error', (error) => ended.abort(new Error(`cannot run ${binary}: ${error.message}`)));
  child.once('exit', (code, signal) => ended.abort(new Error(`redis-server on port ${port} exited with ${code ?? signal}:\n${output}`)));
  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        child.kill('SIGTERM');
        const force = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(force);
      }
      process.off('exit', lastResort);
    })());
  try {
    await waitFor(async () => (await redisCommand(port, ['PING'], { timeoutMs: 500 })) === 'PONG', {
      what: `redis-server on port ${port} to answer PING`,
      timeoutMs: 10_000,
      signal: ended.signal,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, pid: child.pid, stop };
}

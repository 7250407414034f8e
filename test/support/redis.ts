/**
 * Real Redis servers for tests: one server ({@link startRedis}) or a Redis Cluster
 * ({@link startRedisCluster}), each started by the test itself on free loopback ports, in a temp
 * directory under `os.tmpdir()`, and torn down by `stop()`.
 *
 * Binaries: `redis-server` is `$REDISMS_SYSTEM_BINARY`, else `$ROSTER_REDIS_SERVER`, else the
 * first `redis-server` on `PATH` (Debian: `/usr/bin/redis-server`). {@link startRedis} goes through
 * redis-memory-server, which falls back to its own download/build when none is found;
 * {@link startRedisCluster} needs a real binary, and `redis-cli` (`$ROSTER_REDIS_CLI`, else next
 * to `redis-server`, else on `PATH`) for `redis-cli --cluster create`.
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
 * Every process started here is also SIGKILLed when the test process exits, so a crashed test
 * run leaves no server behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { RedisMemoryServer } from 'redis-memory-server';

/** The loopback address every test server binds to. */
export const REDIS_HOST = '127.0.0.1';

// ---------------------------------------------------------------------------------------------
// Binaries

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The `redis-server` binary to use, or `undefined` when none is installed. */
export function redisServerBinary(): string | undefined {
  return process.env.REDISMS_SYSTEM_BINARY || process.env.ROSTER_REDIS_SERVER || onPath('redis-server');
}

/** The `redis-cli` binary to use, or `undefined` when none is installed. */
export function redisCliBinary(): string | undefined {
  if (process.env.ROSTER_REDIS_CLI) return process.env.ROSTER_REDIS_CLI;
  const server = redisServerBinary();
  const beside = server && join(dirname(server), 'redis-cli');
  return beside && existsSync(beside) ? beside : onPath('redis-cli');
}

// ---------------------------------------------------------------------------------------------
// Small utilities

/** Every child process started by this module, killed on exit as a last resort. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Thrown by a {@link waitFor} check to stop polling at once. */
class GiveUp extends Error {}

/**
 * Polls `check` until it returns true, or throws `describe()` after `timeoutMs`. A check that
 * throws counts as false, except with {@link GiveUp}, which ends the wait.
 */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await check().catch((error: unknown) => {
      if (error instanceof GiveUp) throw new Error(`${error.message}: ${describe()}`);
      return false;
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
    await delay(50);
  }
}

/** True when `port` can be bound on the loopback address right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, REDIS_HOST, () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/**
 * A free port `p` whose cluster bus port `p + 10000` is free too. Never the same port twice in
 * one process, so servers started concurrently do not race for one port.
 */
async function freeClusterPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if (taken.has(port)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port pair (p, p+10000) found on the loopback address');
}

/** A one-shot command on a fresh connection; never retries, never queues. */
async function command(port: number, args: string[], timeoutMs = 2000): Promise<unknown> {
  const client = new Redis({
    host: REDIS_HOST,
    port,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(args[0]!, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

/** Runs a process to completion; rejects with its output when it exits non-zero. */
function run(file: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      live.delete(child);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      if (code === 0) resolve(output);
      else reject(new Error(`${file} ${args.join(' ')} exited with ${code ?? signal}:\n${output}`));
    });
  });
}

/** Resolves when `child` has exited (at once when it already has). */
function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
async function terminate(child: ChildProcess, graceMs = 3000): Promise<void> {
  const gone = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
  live.delete(child);
}

// ---------------------------------------------------------------------------------------------
// One server

/** A running `redis-server` started by {@link startRedis}. */
export interface RedisTestServer {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Stops the server gracefully (SIGINT) and removes its temp directory. Idempotent. */
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
 * Starts a `redis-server` on a free loopback port through redis-memory-server (no persistence:
 * `--save '' --appendonly no`), with its working directory in a fresh temp directory.
 *
 * @example
 * ```ts
 * const redis = await startRedis();
 * afterAll(() => redis.stop());
 * ```
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisTestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'roster-redis-'));
  const systemBinary = redisServerBinary();
  const server = new RedisMemoryServer({
    instance: { ip: REDIS_HOST, args: ['--dir', dir, '--dbfilename', 'dump.rdb', ...(options.args ?? [])] },
    ...(systemBinary && { binary: { systemBinary } }),
  });
  let stopped = false;
  try {
    await server.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const port = await server.getPort();
  const child = (): ChildProcess | undefined => {
    const info = server.getInstanceInfo();
    return info ? (info.childProcess ?? undefined) : undefined;
  };

  const handle: RedisTestServer = {
    url: `redis://${REDIS_HOST}:${port}`,
    host: REDIS_HOST,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      child()?.kill('SIGCONT');
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
    async crash() {
      const process = child();
      if (!process) return;
      const gone = exited(process);
      process.kill('SIGKILL');
      await gone;
      await server.stop(); // bookkeeping, and the watchdog process
    },
    pause() {
      child()?.kill('SIGSTOP');
    },
    resume() {
      child()?.kill('SIGCONT');
    },
    async restart({ keepData = false } = {}) {
      if (stopped) throw new Error('startRedis: restart() after stop()');
      if (child()) {
        child()!.kill('SIGCONT');
        if (keepData) await command(port, ['SAVE']);
        await server.stop();
      }
      if (!keepData) await rm(join(dir, 'dump.rdb'), { force: true });
      await server.start();
      const now = await server.getPort();
      if (now !== port) throw new Error(`startRedis: restarted on port ${now} instead of ${port} (port taken meanwhile)`);
    },
  };
  return handle;
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
   * Stops the node (SIGTERM, SIGKILL after 3 s). Its slots stay assigned to it, so their keys
   * become unavailable while the other shards keep serving (`cluster-require-full-coverage no`).
   */
  stop(): Promise<void>;
  /** Kills the node with SIGKILL, as a crash. */
  crash(): Promise<void>;
  /** Starts a stopped node again: it rejoins with its old slots, and no data. */
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
 * Starts a Redis Cluster of `n` masters and no replicas on free loopback ports: spawns `n`
 * `redis-server --cluster-enabled yes --cluster-require-full-coverage no` processes, joins them
 * with `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`, and resolves once every
 * node reports `cluster_state:ok` and knows all the others. On any failure it kills what it
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
  const server = redisServerBinary();
  const cli = redisCliBinary();
  if (!server || !cli) {
    throw new Error('startRedisCluster: needs redis-server and redis-cli (apt-get install redis-server, or set ROSTER_REDIS_SERVER / ROSTER_REDIS_CLI)');
  }
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 3000;
  const dir = await mkdtemp(join(tmpdir(), 'roster-redis-cluster-'));
  const nodes: ClusterNode[] = [];
  let stopped = false;
  const stopAll = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map((node) => node.crash()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < n; i++) nodes.push(new ClusterNode(server, await freeClusterPort(), dir, nodeTimeoutMs));
    await Promise.all(nodes.map((node) => node.start()));
    await run(cli, ['--cluster', 'create', ...nodes.map((node) => node.address), '--cluster-replicas', '0', '--cluster-yes'], readyTimeoutMs);
    await waitFor(
      async () => (await Promise.all(nodes.map((node) => clusterIsOk(node.port, n)))).every(Boolean),
      readyTimeoutMs,
      () => `cluster on ports ${nodes.map((node) => node.port).join(', ')} did not report cluster_state:ok`,
    );
  } catch (error) {
    await stopAll();
    throw error;
  }
  const urls = nodes.map((node) => node.address);
  return {
    nodes,
    urls,
    url: urls.join(','),
    async nodeFor(key) {
      const alive = nodes.find((node) => node.running);
      if (!alive) throw new Error('nodeFor: no node is running');
      const slot = Number(await command(alive.port, ['CLUSTER', 'KEYSLOT', key]));
      const ranges = (await command(alive.port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      const owner = range && nodes.find((node) => node.port === Number(range[2][1]));
      if (!owner) throw new Error(`nodeFor: no node serves slot ${slot} of ${JSON.stringify(key)}`);
      return owner;
    },
    stop: stopAll,
  };
}

async function clusterIsOk(port: number, n: number): Promise<boolean> {
  const info = String(await command(port, ['CLUSTER', 'INFO'], 1000));
  return /cluster_state:ok/.test(info) && new RegExp(`cluster_known_nodes:${n}\\b`).test(info);
}

class ClusterNode implements RedisClusterTestNode {
  readonly host = REDIS_HOST;
  readonly address: string;
  #process: ChildProcess | undefined;
  #output = '';

  constructor(
    private readonly binary: string,
    readonly port: number,
    private readonly dir: string,
    private readonly nodeTimeoutMs: number,
  ) {
    this.address = `${REDIS_HOST}:${port}`;
  }

  get running(): boolean {
    return this.#process !== undefined;
  }

  async start(): Promise<void> {
    if (this.#process) return;
    const args = [
      '--port', String(this.port),
      '--bind', REDIS_HOST,
      '--dir', this.dir,
      '--cluster-enabled', 'yes',
      '--cluster-require-full-coverage', 'no',
      '--cluster-config-file', join(this.dir, `nodes-${this.port}.conf`),
      '--cluster-node-timeout', String(this.nodeTimeoutMs),
      '--appendonly', 'no',
      '--save', '',
      '--daemonize', 'no',
    ];
    const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    this.#process = child;
    this.#output = '';
    const keep = (chunk: Buffer): void => {
      this.#output = (this.#output + chunk.toString()).slice(-4000);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', () => {
      live.delete(child);
      if (this.#process === child) this.#process = undefined;
    });
    try {
      await waitFor(
        async () => {
          if (this.#process !== child) throw new GiveUp('redis-server exited');
          return (await command(this.port, ['PING'], 500)) === 'PONG';
        },
        10_000,
        () => `redis-server on port ${this.port} did not answer PING:\n${this.#output}`,
      );
    } catch (error) {
      await this.crash();
      throw error;
    }
  }

  async stop(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    child.kill('SIGCONT');
    await terminate(child);
  }

  async crash(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    const gone = exited(child);
    child.kill('SIGKILL');
    await gone;
    live.delete(child);
  }

  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  resume(): void {
    this.#process?.kill('SIGCONT');
  }
}

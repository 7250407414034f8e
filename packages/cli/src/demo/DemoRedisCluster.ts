import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';

const HOST = '127.0.0.1';
const SLOTS = 16384;

/** One master of a {@link DemoRedisCluster}. */
export interface DemoShard {
  /** `host:port`. */
  readonly address: string;
  readonly port: number;
  /** The `redis-server` process id while it runs. */
  readonly pid: number | undefined;
  readonly running: boolean;
}

/**
 * A local Redis Cluster for `roster demo --cluster`: `masters` `redis-server` processes on free
 * loopback ports, no replicas, no persistence, `cluster-require-full-coverage no` (the other
 * shards keep serving while one is down), in a temp directory. The slots are split evenly with
 * `CLUSTER ADDSLOTS` and the nodes introduced with `CLUSTER MEET`. Each server runs in a process
 * group of its own, so that Ctrl-C does not stop the store before the nodes have left.
 */
export class DemoRedisCluster {
  readonly #binary: string;
  readonly #dir: string;
  readonly #shards: Shard[];
  #stopped = false;

  private constructor(binary: string, dir: string, shards: Shard[]) {
    this.#binary = binary;
    this.#dir = dir;
    this.#shards = shards;
  }

  /** Starts the servers and forms the cluster; on any failure, kills what it started and rejects. */
  static async start(binary: string, masters = 3): Promise<DemoRedisCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'roster-demo-cluster-'));
    const cluster = new DemoRedisCluster(binary, dir, []);
    try {
      for (let i = 0; i < masters; i++) cluster.#shards.push(new Shard(binary, await freeClusterPort(), dir));
      await Promise.all(cluster.#shards.map((s) => s.start()));
      const [first, ...rest] = cluster.#shards;
      for (const [i, shard] of cluster.#shards.entries()) {
        const from = Math.floor((i * SLOTS) / masters);
        const to = Math.floor(((i + 1) * SLOTS) / masters);
        await command(shard.port, ['CLUSTER', 'ADDSLOTS', ...Array.from({ length: to - from }, (_, k) => String(from + k))]);
        await command(shard.port, ['CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1)]);
      }
      for (const shard of rest) await command(first!.port, ['CLUSTER', 'MEET', HOST, String(shard.port)]);
      await waitFor(async () => {
        const infos = await Promise.all(cluster.#shards.map((s) => command(s.port, ['CLUSTER', 'INFO'])));
        return infos.every((info) => /cluster_state:ok/.test(String(info)) && new RegExp(`cluster_known_nodes:${masters}\\b`).test(String(info)));
      }, 30_000, 'the Redis Cluster did not report cluster_state:ok');
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** The masters, in start order. */
  get shards(): readonly DemoShard[] {
    return this.#shards;
  }

  /** The store URL RedisKV takes: `"127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3"`. */
  get url(): string {
    return this.#shards.map((s) => s.address).join(',');
  }

  /** The binary the servers run. */
  get binary(): string {
    return this.#binary;
  }

  /** The master that serves `key` now (`CLUSTER KEYSLOT`, `CLUSTER SLOTS` on a running master). */
  async shardFor(key: string): Promise<DemoShard> {
    const alive = this.#shards.find((s) => s.running);
    if (!alive) throw new Error('no master is running');
    const slot = Number(await command(alive.port, ['CLUSTER', 'KEYSLOT', key]));
    const ranges = (await command(alive.port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    const owner = range && this.#shards.find((s) => s.port === Number(range[2][1]));
    if (!owner) throw new Error(`no master serves slot ${slot} of ${JSON.stringify(key)}`);
    return owner;
  }

  /** SIGKILLs a master, as a crash: its slots stay assigned to it, so their keys are unavailable. */
  kill(shard: DemoShard): Promise<void> {
    return this.#own(shard).kill();
  }

  /** Starts a killed master again on its port: it rejoins with its old slots and no data. */
  restart(shard: DemoShard): Promise<void> {
    return this.#own(shard).start();
  }

  /** Kills every master and removes the temp directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.#shards.map((s) => s.kill()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  #own(shard: DemoShard): Shard {
    const own = this.#shards.find((s) => s === shard);
    if (!own) throw new Error(`${shard.address} is not a master of this cluster`);
    return own;
  }
}

class Shard implements DemoShard {
  readonly address: string;
  #child: ChildProcess | undefined;
  #output = '';

  constructor(
    private readonly binary: string,
    readonly port: number,
    private readonly dir: string,
  ) {
    this.address = `${HOST}:${port}`;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  async start(): Promise<void> {
    if (this.#child) return;
    // prettier-ignore
    const args = [
      '--port', String(this.port), '--bind', HOST, '--dir', this.dir,
      '--cluster-enabled', 'yes', '--cluster-require-full-coverage', 'no',
      '--cluster-config-file', join(this.dir, `nodes-${this.port}.conf`), '--cluster-node-timeout', '3000',
      '--appendonly', 'no', '--save', '', '--daemonize', 'no',
    ];
    const child = spawn(this.binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.#child = child;
    this.#output = '';
    const keep = (chunk: Buffer): void => void (this.#output = (this.#output + chunk.toString()).slice(-2000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', () => undefined);
    child.once('exit', () => {
      if (this.#child === child) this.#child = undefined;
    });
    try {
      await waitFor(async () => {
        if (this.#child !== child) throw new Error(`redis-server on port ${this.port} exited:\n${this.#output}`);
        return (await command(this.port, ['PING'], 500)) === 'PONG';
      }, 10_000, `redis-server on port ${this.port} did not answer PING`);
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    const gone = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
    child.kill('SIGKILL');
    await gone;
    this.#child = undefined;
  }
}

/** A one-shot command on a fresh connection; never retries, never queues. */
async function command(port: number, args: string[], timeoutMs = 2000): Promise<unknown> {
  const client = new Redis({ host: HOST, port, lazyConnect: true, connectTimeout: timeoutMs, commandTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(args[0]!, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

/** Polls `check` every 50 ms until true; an exception thrown by `check` other than a refusal ends the wait. */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      if (error instanceof Error && /exited/.test(error.message)) throw error;
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms${last instanceof Error ? `: ${last.message}` : ''}`);
    await delay(50);
  }
}

/** True when `port` can be bound on the loopback address now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/** A free port `p` whose cluster bus port `p + 10000` is free too; never the same one twice. */
async function freeClusterPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if (taken.has(port)) continue;
    if ((await portIsFree(port)) && (await portIsFree(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port pair (p, p + 10000) on the loopback address');
}

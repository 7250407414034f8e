import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../errors.js';
import { LOOPBACK_HOST, freeLoopbackPort } from './loopback.js';
import { RedisProcess } from './RedisProcess.js';
import { RedisServer } from './RedisServer.js';
import { redisCommand } from './redisCommand.js';
import { waitFor } from './waitFor.js';

/** The number of hash slots of a Redis Cluster. */
const SLOTS = 16384;
/** A Redis Cluster node's bus port is its port plus this. */
const BUS_PORT_OFFSET = 10_000;

/** Options of {@link LocalRedisCluster.start}. */
export interface LocalRedisClusterOptions {
  /** The `redis-server` binary to run, e.g. `/usr/bin/redis-server`. */
  readonly binary: string;
  /** How many masters (shards); the slots are split evenly among them. @defaultValue 3 */
  readonly masters?: number;
  /**
   * `cluster-node-timeout` in ms: how long before the other nodes flag a dead one as failing.
   * @defaultValue 3000
   */
  readonly nodeTimeoutMs?: number;
  /** How long to wait for the cluster to form. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
  /** Extra `redis-server` arguments for every master, e.g. `['--maxclients', '20000']`. */
  readonly args?: readonly string[];
}

/** One master (one shard) of a {@link LocalRedisCluster}. */
export interface LocalRedisShard {
  /** {@link LOOPBACK_HOST}. */
  readonly host: string;
  readonly port: number;
  /** `host:port`. */
  readonly address: string;
  /** The `redis-server` process id while it runs. */
  readonly pid: number | undefined;
  /** True while its process runs (also while it is paused). */
  readonly running: boolean;
}

/**
 * A Redis Cluster of `redis-server` processes on this machine, for tests, benchmarks and demos:
 * `masters` masters on free loopback ports, no replicas, no persistence,
 * `cluster-require-full-coverage no` (the other shards keep serving while one is down), all in
 * one temp directory. The cluster is formed with `CLUSTER ADDSLOTS` (an even split),
 * `CLUSTER SET-CONFIG-EPOCH` and `CLUSTER MEET`, so `redis-cli` is not needed.
 *
 * Each server runs in a process group of its own, so a Ctrl-C meant for the parent does not
 * stop the store first; {@link stop} kills them all and removes the directory, and whatever still
 * runs when this process exits is SIGKILLed.
 *
 * @example
 * ```ts
 * const cluster = await LocalRedisCluster.start({ binary: '/usr/bin/redis-server' });
 * try {
 *   const kv = await RedisKV.connect({ url: cluster.url });
 *   const shard = await cluster.shardFor('leader 0');
 *   await cluster.kill(shard); // that key's slot is down, the other shards serve
 *   await cluster.restart(shard); // back with its slots, and no data
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 */
export class LocalRedisCluster {
  readonly #binary: string;
  readonly #dir: string;
  readonly #shards: RedisServer[] = [];
  #stopped = false;

  private constructor(binary: string, dir: string) {
    this.#binary = binary;
    this.#dir = dir;
  }

  /**
   * Starts the masters, forms the cluster, and resolves once every master reports
   * `cluster_state:ok`, knows all the others and sees all 16384 slots assigned. On any failure
   * it kills what it started, removes the temp directory and rejects.
   *
   * @throws {@link ConfigError} when `binary` is empty or a number option is out of range.
   */
  static async start(options: LocalRedisClusterOptions): Promise<LocalRedisCluster> {
    const masters = options.masters ?? 3;
    const nodeTimeoutMs = options.nodeTimeoutMs ?? 3000;
    const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    if (typeof options.binary !== 'string' || options.binary === '') throw new ConfigError('binary', options.binary, 'binary must be the path of a redis-server');
    if (!Number.isInteger(masters) || masters < 1 || masters > 100) throw new ConfigError('masters', masters, 'masters must be an integer from 1 to 100');
    if (!Number.isInteger(nodeTimeoutMs) || nodeTimeoutMs < 100) throw new ConfigError('nodeTimeoutMs', nodeTimeoutMs, 'nodeTimeoutMs must be an integer of at least 100');
    if (!(readyTimeoutMs > 0)) throw new ConfigError('readyTimeoutMs', readyTimeoutMs, 'readyTimeoutMs must be positive');

    const dir = await mkdtemp(join(tmpdir(), 'roster-redis-cluster-'));
    const cluster = new LocalRedisCluster(options.binary, dir);
    try {
      for (let i = 0; i < masters; i++) {
        const port = await freeLoopbackPort({ alsoFree: [BUS_PORT_OFFSET] });
        // prettier-ignore
        const args = [
          '--bind', LOOPBACK_HOST, '--dir', dir,
          '--cluster-enabled', 'yes', '--cluster-require-full-coverage', 'no',
          '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', String(nodeTimeoutMs),
          '--appendonly', 'no', '--save', '', '--daemonize', 'no',
          ...(options.args ?? []),
        ];
        cluster.#shards.push(new RedisServer(new RedisProcess(options.binary, port, args)));
      }
      await Promise.all(cluster.#shards.map((shard) => shard.process.start()));
      await cluster.#form(readyTimeoutMs);
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  async #form(readyTimeoutMs: number): Promise<void> {
    const shards = this.#shards;
    for (const [i, shard] of shards.entries()) {
      const from = Math.floor((i * SLOTS) / shards.length);
      const to = Math.floor(((i + 1) * SLOTS) / shards.length);
      await redisCommand(shard.port, ['CLUSTER', 'ADDSLOTS', ...Array.from({ length: to - from }, (_, k) => from + k)]);
      await redisCommand(shard.port, ['CLUSTER', 'SET-CONFIG-EPOCH', i + 1]);
    }
    const [first, ...rest] = shards;
    for (const shard of rest) await redisCommand(first!.port, ['CLUSTER', 'MEET', LOOPBACK_HOST, shard.port]);
    const known = new RegExp(`cluster_known_nodes:${shards.length}\\b`);
    await waitFor(
      async () => {
        const infos = await Promise.all(shards.map((shard) => redisCommand(shard.port, ['CLUSTER', 'INFO'], { timeoutMs: 1000 })));
        return infos.map(String).every((info) => /cluster_state:ok/.test(info) && known.test(info) && new RegExp(`cluster_slots_assigned:${SLOTS}\\b`).test(info));
      },
      { what: `the Redis Cluster on ports ${shards.map((shard) => shard.port).join(', ')} to report cluster_state:ok`, timeoutMs: readyTimeoutMs },
    );
  }

  /** The masters, in start order. */
  get shards(): readonly LocalRedisShard[] {
    return this.#shards;
  }

  /** The store URL RedisKV takes: `"127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3"`. */
  get url(): string {
    return this.#shards.map((shard) => shard.address).join(',');
  }

  /** The `redis-server` binary the masters run. */
  get binary(): string {
    return this.#binary;
  }

  /**
   * The master that serves `key` now, as a running master tells (`CLUSTER KEYSLOT`, then
   * `CLUSTER SLOTS`). Rejects when no master runs or no master serves the key's slot.
   */
  async shardFor(key: string): Promise<LocalRedisShard> {
    const alive = this.#shards.find((shard) => shard.running);
    if (!alive) throw new Error('no master of the cluster is running');
    const slot = Number(await redisCommand(alive.port, ['CLUSTER', 'KEYSLOT', key]));
    const ranges = (await redisCommand(alive.port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    const owner = range && this.#shards.find((shard) => shard.port === Number(range[2][1]));
    if (!owner) throw new Error(`no master serves slot ${slot} of ${JSON.stringify(key)}`);
    return owner;
  }

  /**
   * SIGKILLs a master, as a crash (a paused one too); resolves once it is gone. Its slots stay
   * assigned to it, so their keys are unavailable while the other shards keep serving. Does
   * nothing when it is not running.
   */
  kill(shard: LocalRedisShard): Promise<void> {
    return this.#own(shard).process.kill();
  }

  /** Freezes a master with SIGSTOP: its connections stay open, and nothing answers. */
  pause(shard: LocalRedisShard): void {
    this.#own(shard).process.signal('SIGSTOP');
  }

  /** Undoes {@link pause} with SIGCONT. */
  resume(shard: LocalRedisShard): void {
    this.#own(shard).process.signal('SIGCONT');
  }

  /**
   * Starts a master again on its port (killing it first when it runs) and resolves once it
   * answers PING: it rejoins with its old slots (from its `nodes.conf`) and no data. Until the
   * others have seen it back (about a second) it may answer `CLUSTERDOWN`. Rejects when the port
   * was taken meanwhile, or after {@link stop}.
   */
  async restart(shard: LocalRedisShard): Promise<void> {
    const own = this.#own(shard);
    if (this.#stopped) throw new Error('LocalRedisCluster: restart() after stop()');
    await own.process.kill();
    await own.process.start();
  }

  /** Kills every master and removes the temp directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.#shards.map((shard) => shard.process.kill()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  #own(shard: LocalRedisShard): RedisServer {
    const own = this.#shards.find((candidate) => candidate === shard);
    if (!own) throw new Error(`${shard.address} is not a master of this cluster`);
    return own;
  }
}

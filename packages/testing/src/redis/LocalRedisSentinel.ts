import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@roster/kv-adapter';
import { LOOPBACK_HOST, freeLoopbackPort } from '../process/loopback.js';
import { RedisProcess } from './RedisProcess.js';
import { RedisServer } from './RedisServer.js';
import { redisCommand } from './redisCommand.js';
import { waitFor } from '../process/waitFor.js';

/** Options of {@link LocalRedisSentinel.start}. */
export interface LocalRedisSentinelOptions {
  /** The `redis-server` binary, e.g. `/usr/bin/redis-server`; the sentinels run it with `--sentinel`. */
  readonly binary: string;
  /** The master's name, as the sentinels know it. @defaultValue 'roster' */
  readonly masterName?: string;
  /** How many replicas of the master. @defaultValue 2 */
  readonly replicas?: number;
  /** How many sentinels; the quorum is a majority of them. @defaultValue 3 */
  readonly sentinels?: number;
  /** `down-after-milliseconds`: how long the master may be silent before it is deemed down. @defaultValue 1000 */
  readonly downAfterMs?: number;
  /**
   * `failover-timeout`: bounds a failover's steps, and the same master is not failed over again by
   * the sentinels within twice this. @defaultValue 3000
   */
  readonly failoverTimeoutMs?: number;
  /** How long to wait for the deployment to be ready. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
  /** Extra `redis-server` arguments for the master and the replicas. */
  readonly args?: readonly string[];
}

/** One data server (the master or a replica) of a {@link LocalRedisSentinel}. */
export interface LocalRedisNode {
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

/** What {@link LocalRedisSentinel.waitForFailover} saw. */
export interface LocalRedisFailover {
  /** The master before. */
  readonly from: LocalRedisNode;
  /** The promoted replica, named by every running sentinel and reporting `role:master`. */
  readonly to: LocalRedisNode;
  /** How long the wait took, in ms. */
  readonly waitedMs: number;
}

/**
 * A Redis Sentinel deployment on this machine, for tests, benchmarks and demos: a master,
 * `replicas` replicas and `sentinels` sentinels on free loopback ports, no persistence, all in one
 * temp directory, with short failure detection (`down-after-milliseconds` 1 s by default).
 *
 * Each server runs in a process group of its own, so a Ctrl-C meant for the parent does not stop
 * the store first; {@link stop} kills them all and removes the directory, and whatever still runs
 * when this process exits is SIGKILLed.
 *
 * @example
 * ```ts
 * const sentinel = await LocalRedisSentinel.start({ binary: '/usr/bin/redis-server' });
 * try {
 *   const kv = await RedisKV.connect({ url: sentinel.url }); // redis+sentinel://127.0.0.1:p1,…/roster
 *   const { from, to } = await sentinel.failover(); // SIGKILL the master, wait for the promotion
 *   await sentinel.restart(from); // back as a replica of `to`
 * } finally {
 *   await sentinel.stop();
 * }
 * ```
 */
export class LocalRedisSentinel {
  /** The master's name, as the sentinels know it. */
  readonly masterName: string;
  readonly #dir: string;
  readonly #nodes: RedisServer[] = [];
  readonly #sentinels: RedisProcess[] = [];
  readonly #pausedSentinels = new Set<RedisProcess>();
  #minReplicas: { count: number; maxLagS: number } | undefined;
  #stopped = false;

  private constructor(masterName: string, dir: string) {
    this.masterName = masterName;
    this.#dir = dir;
  }

  /**
   * Starts the master, its replicas and the sentinels, and resolves once the replicas are in sync
   * and every sentinel knows the master, every replica and every other sentinel. On any failure
   * it kills what it started, removes the temp directory and rejects.
   *
   * @throws {@link ConfigError} when `binary` is empty or an option is out of range.
   */
  static async start(options: LocalRedisSentinelOptions): Promise<LocalRedisSentinel> {
    const masterName = options.masterName ?? 'roster';
    const replicas = options.replicas ?? 2;
    const sentinels = options.sentinels ?? 3;
    const downAfterMs = options.downAfterMs ?? 1000;
    const failoverTimeoutMs = options.failoverTimeoutMs ?? 3000;
    const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    if (typeof options.binary !== 'string' || options.binary === '') throw new ConfigError('binary', options.binary, 'binary must be the path of a redis-server');
    if (!/^[A-Za-z0-9._-]+$/.test(masterName)) throw new ConfigError('masterName', masterName, 'masterName must be letters, digits, `.`, `_` or `-`');
    if (!Number.isInteger(replicas) || replicas < 0 || replicas > 10) throw new ConfigError('replicas', replicas, 'replicas must be an integer from 0 to 10');
    if (!Number.isInteger(sentinels) || sentinels < 1 || sentinels > 9) throw new ConfigError('sentinels', sentinels, 'sentinels must be an integer from 1 to 9');
    if (!Number.isInteger(downAfterMs) || downAfterMs < 100) throw new ConfigError('downAfterMs', downAfterMs, 'downAfterMs must be an integer of at least 100');
    if (!Number.isInteger(failoverTimeoutMs) || failoverTimeoutMs < 500) throw new ConfigError('failoverTimeoutMs', failoverTimeoutMs, 'failoverTimeoutMs must be an integer of at least 500');
    if (!(readyTimeoutMs > 0)) throw new ConfigError('readyTimeoutMs', readyTimeoutMs, 'readyTimeoutMs must be positive');

    const dir = await mkdtemp(join(tmpdir(), 'roster-redis-sentinel-'));
    const deployment = new LocalRedisSentinel(masterName, dir);
    try {
      // No 5 s wait before a full sync (`repl-diskless-sync-delay`): a restarted replica is in sync at once.
      // prettier-ignore
      const dataArgs = ['--bind', LOOPBACK_HOST, '--dir', dir, '--appendonly', 'no', '--save', '', '--daemonize', 'no', '--repl-diskless-sync-delay', '0', ...(options.args ?? [])];
      for (let i = 0; i <= replicas; i++) {
        const port = await freeLoopbackPort();
        deployment.#nodes.push(new RedisServer(new RedisProcess(options.binary, port, [...dataArgs, '--dbfilename', `dump-${port}.rdb`])));
      }
      const [master, ...rest] = deployment.#nodes;
      await master!.process.start();
      await Promise.all(rest.map((node) => node.process.start(10_000, ['--replicaof', LOOPBACK_HOST, String(master!.port)])));
      await deployment.#waitInSync(master!, replicas, readyTimeoutMs);

      const quorum = Math.floor(sentinels / 2) + 1;
      for (let i = 0; i < sentinels; i++) {
        const port = await freeLoopbackPort();
        const file = join(dir, `sentinel-${port}.conf`);
        // prettier-ignore
        await writeFile(file, [
          `bind ${LOOPBACK_HOST}`, `dir ${dir}`, 'daemonize no',
          `sentinel monitor ${masterName} ${LOOPBACK_HOST} ${master!.port} ${quorum}`,
          `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
          `sentinel failover-timeout ${masterName} ${failoverTimeoutMs}`,
          `sentinel parallel-syncs ${masterName} ${Math.max(1, replicas)}`,
          '',
        ].join('\n'));
        deployment.#sentinels.push(new RedisProcess(options.binary, port, ['--sentinel'], file));
      }
      await Promise.all(deployment.#sentinels.map((sentinel) => sentinel.start()));
      await waitFor(
        async () => {
          for (const sentinel of deployment.#sentinels) {
            const info = fields((await redisCommand(sentinel.port, ['SENTINEL', 'MASTER', masterName], { timeoutMs: 1000 })) as string[]);
            if (info['flags'] !== 'master' || Number(info['num-slaves']) !== replicas || Number(info['num-other-sentinels']) !== sentinels - 1) return false;
          }
          return true;
        },
        { what: `the sentinels on ports ${deployment.#sentinels.map((s) => s.port).join(', ')} to know the master, ${replicas} replicas and each other`, timeoutMs: readyTimeoutMs },
      );
      return deployment;
    } catch (error) {
      await deployment.stop();
      throw error;
    }
  }

  /** The store URL RedisKV takes: `"redis+sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/roster"`. */
  get url(): string {
    return `redis+sentinel://${this.#sentinels.map((s) => `${LOOPBACK_HOST}:${s.port}`).join(',')}/${this.masterName}`;
  }

  /** The data servers (the first master, then the replicas), in start order. */
  get nodes(): readonly LocalRedisNode[] {
    return this.#nodes;
  }

  /** The sentinels' ports, in the URL's order. */
  get sentinelPorts(): readonly number[] {
    return this.#sentinels.map((s) => s.port);
  }

  /** The master now, as the first running (not paused) sentinel names it (`SENTINEL GET-MASTER-ADDR-BY-NAME`). */
  async master(): Promise<LocalRedisNode> {
    const sentinel = this.#answering()[0];
    if (!sentinel) throw new Error('no sentinel is running');
    const [, port] = (await redisCommand(sentinel.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName], { timeoutMs: 1000 })) as [string, string];
    const node = this.#nodes.find((n) => n.port === Number(port));
    if (!node) throw new Error(`the sentinels name an unknown master on port ${port}`);
    return node;
  }

  /**
   * SIGKILLs `node` (the master by default), as a crash; resolves with it once it is gone. Does
   * nothing to a node that is not running.
   */
  async kill(node?: LocalRedisNode): Promise<LocalRedisNode> {
    const target = this.#own(node ?? (await this.master()));
    await target.process.kill();
    return target;
  }

  /**
   * Resolves once every running (not paused) sentinel names a master other than `from` and that
   * server reports `role:master`; rejects after `timeoutMs` (default 30 s).
   */
  async waitForFailover(from: LocalRedisNode, timeoutMs = 30_000): Promise<LocalRedisFailover> {
    let to: RedisServer | undefined;
    const waitedMs = await waitFor(
      async () => {
        const ports = new Set<number>();
        for (const sentinel of this.#answering()) {
          const reply = (await redisCommand(sentinel.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.masterName], { timeoutMs: 500 })) as [string, string];
          ports.add(Number(reply[1]));
        }
        const [port] = ports;
        if (ports.size !== 1 || port === from.port) return false;
        to = this.#nodes.find((n) => n.port === port);
        const role = (await redisCommand(port!, ['ROLE'], { timeoutMs: 500 })) as [string];
        return role[0] === 'master';
      },
      { what: `the sentinels to fail ${this.masterName} over from ${from.address}`, timeoutMs, everyMs: 20 },
    );
    return { from, to: to!, waitedMs };
  }

  /** {@link kill}s the master and {@link waitForFailover}s. */
  async failover(timeoutMs = 30_000): Promise<LocalRedisFailover> {
    const from = await this.kill();
    return this.waitForFailover(from, timeoutMs);
  }

  /**
   * Starts `node` again on its port (killing it first when it runs) as a replica of the current
   * master, with no data until it has synced, and with the `min-replicas-to-write` last set.
   */
  async restart(node: LocalRedisNode): Promise<void> {
    const own = this.#own(node);
    if (this.#stopped) throw new Error('LocalRedisSentinel: restart() after stop()');
    await own.process.kill();
    const master = await this.master();
    const min = this.#minReplicas;
    // prettier-ignore
    await own.process.start(10_000, [
      '--replicaof', LOOPBACK_HOST, String(master.port),
      ...(min ? ['--min-replicas-to-write', String(min.count), '--min-replicas-max-lag', String(min.maxLagS)] : []),
    ]);
  }

  /**
   * Makes the deployment whole again after a failover: every running server other than the master
   * the sentinels name replicates it and is in sync. An old master still up after a manual failover
   * (the sentinels convert it only after several seconds) is made a replica at once, as an
   * operator would. Right after a failover the sentinels may still be reconfiguring (a master they
   * named a moment ago, a returning server they convert): each try gives the replicas 5 s to catch
   * up, then asks the sentinels again. Rejects after `timeoutMs` (default 30 s).
   */
  async settle(timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const master = await this.master();
      const others = this.#nodes.filter((n) => n !== master && n.running);
      for (const node of others) {
        const [role, host, port] = (await redisCommand(node.port, ['ROLE'], { timeoutMs: 1000 })) as [string, string?, number?];
        if (role === 'master' || Number(port) !== master.port || host !== LOOPBACK_HOST) await redisCommand(node.port, ['REPLICAOF', LOOPBACK_HOST, master.port]);
      }
      try {
        await this.#waitInSync(master, others.length, Math.max(1, Math.min(5_000, deadline - performance.now())));
        return;
      } catch (error) {
        if (performance.now() >= deadline) throw error;
      }
    }
  }

  /** Freezes a data server with SIGSTOP: its connections stay open, and nothing answers. */
  pause(node: LocalRedisNode): void {
    this.#own(node).process.signal('SIGSTOP');
  }

  /** Undoes {@link pause} with SIGCONT. */
  resume(node: LocalRedisNode): void {
    this.#own(node).process.signal('SIGCONT');
  }

  /** SIGSTOPs (`true`) or SIGCONTs (`false`) the sentinel on `port`. */
  pauseSentinel(port: number, paused = true): void {
    const sentinel = this.#sentinels.find((s) => s.port === port);
    if (!sentinel) throw new Error(`no sentinel of this deployment on port ${port}`);
    sentinel.signal(paused ? 'SIGSTOP' : 'SIGCONT');
    if (paused) this.#pausedSentinels.add(sentinel);
    else this.#pausedSentinels.delete(sentinel);
  }

  #answering(): RedisProcess[] {
    return this.#sentinels.filter((s) => s.running && !this.#pausedSentinels.has(s));
  }

  /**
   * Sets `min-replicas-to-write` (and `min-replicas-max-lag`, seconds) on every running data
   * server, since any of them may become the master: a master with fewer replicas in sync refuses
   * writes with `NOREPLICAS`. `0` turns it off. Servers restarted later get the same setting.
   */
  async setMinReplicasToWrite(count: number, maxLagS = 1): Promise<void> {
    if (!Number.isInteger(count) || count < 0) throw new ConfigError('count', count, 'count must be a non-negative integer');
    if (!Number.isInteger(maxLagS) || maxLagS < 1) throw new ConfigError('maxLagS', maxLagS, 'maxLagS must be a positive integer');
    this.#minReplicas = count === 0 ? undefined : { count, maxLagS };
    for (const node of this.#nodes.filter((n) => n.running)) {
      await redisCommand(node.port, ['CONFIG', 'SET', 'min-replicas-to-write', count, 'min-replicas-max-lag', maxLagS]);
    }
  }

  /**
   * Cuts the replicas off the master, as a partition between them would, while clients still
   * reach it: the replicas' links are closed and they cannot authenticate again (a wrong
   * `masterauth`), so every write the master acknowledges from now on is on the master alone, and
   * is lost if the master dies and a replica is promoted. Resolves with the function that mends it
   * (on every running server; a server restarted meanwhile is whole anyway).
   */
  async cutReplication(): Promise<() => Promise<void>> {
    const master = await this.master();
    const replicas = this.#nodes.filter((n) => n !== master && n.running);
    for (const replica of replicas) await redisCommand(replica.port, ['CONFIG', 'SET', 'masterauth', 'roster-replication-cut']);
    await redisCommand(master.port, ['CLIENT', 'KILL', 'TYPE', 'replica']);
    return async () => {
      for (const node of this.#nodes.filter((n) => n.running)) await redisCommand(node.port, ['CONFIG', 'SET', 'masterauth', '']);
    };
  }

  /**
   * Closes the connections of the master's ordinary clients (not the sentinels', not the
   * replicas'), as a network blip would; resolves with how many were closed.
   */
  async dropClients(): Promise<number> {
    const master = await this.master();
    const list = String(await redisCommand(master.port, ['CLIENT', 'LIST', 'TYPE', 'normal']));
    let dropped = 0;
    for (const line of list.split('\n')) {
      const id = /\bid=(\d+)/.exec(line)?.[1];
      const name = /\bname=(\S*)/.exec(line)?.[1] ?? '';
      if (id === undefined || name.startsWith('sentinel-') || /\bcmd=client\b/.test(line)) continue;
      dropped += Number(await redisCommand(master.port, ['CLIENT', 'KILL', 'ID', id]).catch(() => 0));
    }
    return dropped;
  }

  /** Kills every server and sentinel and removes the temp directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all([...this.#nodes.map((n) => n.process.kill()), ...this.#sentinels.map((s) => s.kill())]);
    await rm(this.#dir, { recursive: true, force: true });
  }

  /** Waits until `replicas` replicas of `master` are online and have everything it had written when the wait began. */
  async #waitInSync(master: LocalRedisNode, replicas: number, timeoutMs: number): Promise<void> {
    let target: number | undefined;
    await waitFor(
      async () => {
        const info = String(await redisCommand(master.port, ['INFO', 'replication'], { timeoutMs: 1000 }));
        const offset = Number(/master_repl_offset:(\d+)/.exec(info)?.[1] ?? 0);
        target ??= offset;
        const online = [...info.matchAll(/^slave\d+:.*state=online,offset=(\d+)/gm)].filter((m) => Number(m[1]) >= target!);
        return online.length === replicas;
      },
      { what: `${replicas} replicas of ${master.address} to be in sync`, timeoutMs },
    );
  }

  #own(node: LocalRedisNode): RedisServer {
    const own = this.#nodes.find((candidate) => candidate === node);
    if (!own) throw new Error(`${node.address} is not a server of this deployment`);
    return own;
  }
}

/** A flat `[name, value, name, value, …]` reply as an object. */
function fields(reply: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[reply[i]!] = reply[i + 1]!;
  return out;
}

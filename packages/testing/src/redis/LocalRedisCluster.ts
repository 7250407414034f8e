import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { ConfigError } from '@roster/kv-adapter';
import { describeTopology, isHealthy, parseClusterNodes, slotOwner, type ClusterNodeLine } from './clusterNodes.js';
import { LOOPBACK_HOST, freeLoopbackPort } from '../process/loopback.js';
import { RedisProcess } from './RedisProcess.js';
import { RedisServer } from './RedisServer.js';
import { redisCommand } from './redisCommand.js';
import { waitFor } from '../process/waitFor.js';

/** The number of hash slots of a Redis Cluster. */
const SLOTS = 16384;
/** A Redis Cluster node's bus port is its port plus this. */
const BUS_PORT_OFFSET = 10_000;
/** How many keys one `MIGRATE` moves during {@link LocalRedisCluster.migrateSlot}. */
const MIGRATE_BATCH = 100;

/** Options of {@link LocalRedisCluster.start}. */
export interface LocalRedisClusterOptions {
  /** The `redis-server` binary to run, e.g. `/usr/bin/redis-server`. */
  readonly binary: string;
  /** How many masters (shards); the slots are split evenly among them. @defaultValue 3 */
  readonly masters?: number;
  /**
   * How many replicas each master has, attached with `CLUSTER REPLICATE` and in sync before
   * {@link LocalRedisCluster.start} resolves. @defaultValue 0
   */
  readonly replicas?: number;
  /**
   * `cluster-node-timeout` in ms: how long before the other nodes flag a dead one as failing (and,
   * with replicas, before a replica of a dead master starts its promotion).
   * @defaultValue 3000
   */
  readonly nodeTimeoutMs?: number;
  /**
   * How long to wait for the cluster to form, and for each topology change
   * ({@link LocalRedisCluster.failover}, {@link LocalRedisCluster.migrateSlot}, …) to settle.
   * @defaultValue 30000
   */
  readonly readyTimeoutMs?: number;
  /** Extra `redis-server` arguments for every server, e.g. `['--maxclients', '20000']`. */
  readonly args?: readonly string[];
}

/**
 * One server of a {@link LocalRedisCluster}: a master (a shard) or a replica. The same object
 * stands for the same server whatever its role: after a failover the replica is a master and the
 * old master its replica.
 */
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
 * How {@link LocalRedisCluster.failover} asks the replica to take over (`CLUSTER FAILOVER …`):
 * - `graceful`: the master stops its clients, the replica catches up and takes over; no write is
 *   lost;
 * - `force`: without the master's agreement (the master may be unreachable), but with the other
 *   masters' votes;
 * - `takeover`: without anyone's agreement: the replica bumps its epoch and claims the slots.
 */
export type LocalRedisFailoverMode = 'graceful' | 'force' | 'takeover';

/** What a failover of a {@link LocalRedisCluster} did. */
export interface LocalRedisClusterFailover {
  /** The master before. */
  readonly from: LocalRedisShard;
  /** The replica that serves its slots now. */
  readonly to: LocalRedisShard;
  /** From the command (or the kill) until every running server agreed on the new topology. */
  readonly waitedMs: number;
}

/** Options of {@link LocalRedisCluster.killMaster}. */
export interface LocalRedisKillMasterOptions {
  /**
   * Called once the master's replicas have stopped applying what it sends (`CLIENT PAUSE … WRITE`
   * on each: they read the replication stream and hold its writes), right before the master is
   * killed: whatever it writes to that master's keys is acknowledged by the master and missing on
   * the replica promoted in its place, as asynchronous replication loses the last writes of a
   * master that dies. The replicas are unpaused once one of them is promoted, so clients' writes
   * to the new master wait until then.
   */
  readonly writesToLose?: () => Promise<void>;
}

/** Options of {@link LocalRedisCluster.migrateSlot}. */
export interface LocalRedisSlotMigrationOptions {
  /**
   * How long the slot stays `MIGRATING` on its master and `IMPORTING` on the new one with its keys
   * already moved: the old master answers `ASK` for every key of the slot all that time.
   * @defaultValue 0
   */
  readonly holdMs?: number;
}

/** What {@link LocalRedisCluster.migrateSlot} did. */
export interface LocalRedisSlotMigration {
  readonly slot: number;
  /** The master that served the slot before. */
  readonly from: LocalRedisShard;
  /** The master that serves it now. */
  readonly to: LocalRedisShard;
  /** How many keys were moved. */
  readonly keys: number;
  /** From `IMPORTING` until every running server agreed on the slot's new master. */
  readonly tookMs: number;
}

/**
 * A Redis Cluster of `redis-server` processes on this machine, for tests, benchmarks and demos:
 * `masters` masters on free loopback ports, each with `replicas` replicas (none by default), no
 * persistence, `cluster-require-full-coverage no` (the other shards keep serving while one is
 * down), no replica migration, all in one temp directory. The cluster is formed with
 * `CLUSTER ADDSLOTS` (an even split), `CLUSTER SET-CONFIG-EPOCH`, `CLUSTER MEET` and
 * `CLUSTER REPLICATE`, so `redis-cli` is not needed.
 *
 * Topology changes ({@link failover}, {@link killMaster}, {@link migrateSlot}, and
 * {@link restart} with replicas) resolve once they are complete: every running server lists the
 * same masters, replicas and slots (`CLUSTER NODES`), sees every other running server as healthy,
 * no slot is migrating, and every replica's link to its master is up. {@link shards} follows them:
 * it names each shard's master now.
 *
 * Each server runs in a process group of its own, so a Ctrl-C meant for the parent does not
 * stop the store first; {@link stop} kills them all and removes the directory, and whatever still
 * runs when this process exits is SIGKILLed.
 *
 * @example
 * ```ts
 * const cluster = await LocalRedisCluster.start({ binary: '/usr/bin/redis-server', replicas: 1, nodeTimeoutMs: 1000 });
 * try {
 *   const kv = await RedisKV.connect({ url: cluster.url }); // every server is a seed
 *   const master = await cluster.shardFor('leader 0');
 *   await cluster.failover(master, 'graceful'); // its replica serves 'leader 0' now
 *   await cluster.migrateSlot(await cluster.slotOf('leader 0'), cluster.shards.find((s) => s !== master)!, { holdMs: 300 });
 *   await cluster.killMaster(await cluster.shardFor('leader 0')); // its replica is promoted
 * } finally {
 *   await cluster.stop();
 * }
 * ```
 */
export class LocalRedisCluster {
  readonly #binary: string;
  readonly #dir: string;
  readonly #timeoutMs: number;
  /** Every server: the masters first, then the replicas, in start order. */
  readonly #servers: RedisServer[] = [];
  /** Per shard, the servers that started as its master and its replicas (failovers stay within). */
  readonly #groups: RedisServer[][] = [];
  /** The last agreed roles: a replica's master, `undefined` for a master. */
  readonly #masterOf = new Map<RedisServer, RedisServer | undefined>();
  /** The cluster node ids (`CLUSTER MYID`), which a restart keeps (`nodes.conf`). */
  readonly #ids = new Map<RedisServer, string>();
  readonly #paused = new Set<RedisServer>();
  #stopped = false;

  private constructor(binary: string, dir: string, timeoutMs: number) {
    this.#binary = binary;
    this.#dir = dir;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Starts the servers, forms the cluster, and resolves once every server reports
   * `cluster_state:ok`, knows all the others, sees all 16384 slots assigned, and every replica is
   * in sync with its master. On any failure it kills what it started, removes the temp directory
   * and rejects.
   *
   * @throws {@link ConfigError} when `binary` is empty or a number option is out of range.
   */
  static async start(options: LocalRedisClusterOptions): Promise<LocalRedisCluster> {
    const masters = options.masters ?? 3;
    const replicas = options.replicas ?? 0;
    const nodeTimeoutMs = options.nodeTimeoutMs ?? 3000;
    const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    if (typeof options.binary !== 'string' || options.binary === '') throw new ConfigError('binary', options.binary, 'binary must be the path of a redis-server');
    if (!Number.isInteger(masters) || masters < 1 || masters > 100) throw new ConfigError('masters', masters, 'masters must be an integer from 1 to 100');
    if (!Number.isInteger(replicas) || replicas < 0 || replicas > 5) throw new ConfigError('replicas', replicas, 'replicas must be an integer from 0 to 5');
    if (!Number.isInteger(nodeTimeoutMs) || nodeTimeoutMs < 100) throw new ConfigError('nodeTimeoutMs', nodeTimeoutMs, 'nodeTimeoutMs must be an integer of at least 100');
    if (!(readyTimeoutMs > 0)) throw new ConfigError('readyTimeoutMs', readyTimeoutMs, 'readyTimeoutMs must be positive');

    const dir = await mkdtemp(join(tmpdir(), 'roster-redis-cluster-'));
    const cluster = new LocalRedisCluster(options.binary, dir, readyTimeoutMs);
    try {
      const newServer = async (): Promise<RedisServer> => {
        const port = await freeLoopbackPort({ alsoFree: [BUS_PORT_OFFSET] });
        // prettier-ignore
        const args = [
          '--bind', LOOPBACK_HOST, '--dir', dir,
          '--cluster-enabled', 'yes', '--cluster-require-full-coverage', 'no', '--cluster-allow-replica-migration', 'no',
          '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', String(nodeTimeoutMs),
          '--appendonly', 'no', '--save', '', '--daemonize', 'no',
          // A replica (re)attached is in sync at once, not after Redis' 5 s diskless-sync delay.
          '--repl-diskless-sync-delay', '0',
          ...(options.args ?? []),
        ];
        const server = new RedisServer(new RedisProcess(options.binary, port, args));
        cluster.#servers.push(server);
        return server;
      };
      for (let i = 0; i < masters; i++) cluster.#groups.push([await newServer()]);
      for (let r = 0; r < replicas; r++) for (const group of cluster.#groups) group.push(await newServer());
      await Promise.all(cluster.#servers.map((server) => server.process.start()));
      for (const server of cluster.#servers) cluster.#ids.set(server, String(await redisCommand(server.port, ['CLUSTER', 'MYID'])));
      await cluster.#form();
      await cluster.#attachReplicas();
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  /** Gives each shard's first server its slots and an epoch, and makes every server meet the first. */
  async #form(): Promise<void> {
    const masters = this.#groups.map((group) => group[0]!);
    for (const [i, master] of masters.entries()) {
      const from = Math.floor((i * SLOTS) / masters.length);
      const to = Math.floor(((i + 1) * SLOTS) / masters.length);
      await redisCommand(master.port, ['CLUSTER', 'ADDSLOTS', ...Array.from({ length: to - from }, (_, k) => from + k)]);
      await redisCommand(master.port, ['CLUSTER', 'SET-CONFIG-EPOCH', i + 1]);
    }
    const [first, ...rest] = this.#servers;
    for (const server of rest) await redisCommand(first!.port, ['CLUSTER', 'MEET', LOOPBACK_HOST, server.port]);
    const known = new RegExp(`cluster_known_nodes:${this.#servers.length}\\b`);
    const assigned = new RegExp(`cluster_slots_assigned:${SLOTS}\\b`);
    await waitFor(
      async () => {
        const infos = await Promise.all(this.#servers.map((server) => redisCommand(server.port, ['CLUSTER', 'INFO'], { timeoutMs: 1000 })));
        return infos.map(String).every((info) => /cluster_state:ok/.test(info) && known.test(info) && assigned.test(info));
      },
      { what: `the Redis Cluster on ports ${this.#servers.map((server) => server.port).join(', ')} to report cluster_state:ok`, timeoutMs: this.#timeoutMs },
    );
  }

  /**
   * `CLUSTER REPLICATE` on every replica (retried while it does not know its master yet), then
   * waits until every server agrees on the planned roles and the replicas are in sync.
   */
  async #attachReplicas(): Promise<void> {
    for (const [master, ...replicas] of this.#groups) {
      this.#masterOf.set(master!, undefined);
      for (const replica of replicas) {
        this.#masterOf.set(replica, master);
        await waitFor(async () => (await redisCommand(replica.port, ['CLUSTER', 'REPLICATE', this.#id(master!)])) === 'OK', {
          what: `${replica.address} to replicate ${master!.address}`,
          timeoutMs: this.#timeoutMs,
        });
      }
    }
    const planned = new Map(this.#masterOf);
    await this.#settle('every replica to be attached and in sync', (lines) =>
      [...planned].every(([server, master]) => {
        const line = lines.find((l) => l.port === server.port);
        return master === undefined ? line?.flags.has('master') === true : this.#portOfMaster(lines, line) === master.port;
      }),
    );
  }

  /** Every server, masters and replicas: the masters first, then the replicas, in start order. */
  get servers(): readonly LocalRedisShard[] {
    return this.#servers;
  }

  /**
   * The master of each shard, in shard order: after a failover (or a master killed and replaced),
   * the replica that took over. As of the last change this cluster made or waited for (see
   * {@link settle} after a {@link kill}).
   */
  get shards(): readonly LocalRedisShard[] {
    return this.#groups.map((group) => {
      const masters = group.filter((server) => this.#masterOf.get(server) === undefined);
      return masters.find((server) => server.running) ?? masters[0] ?? group[0]!;
    });
  }

  /** The replicas of `master` now (see {@link shards}), in start order; empty without replicas. */
  replicasOf(master: LocalRedisShard): readonly LocalRedisShard[] {
    const own = this.#own(master);
    return this.#servers.filter((server) => this.#masterOf.get(server) === own);
  }

  /** The cluster node id of `server` (`CLUSTER MYID`), which it keeps across restarts. */
  nodeId(server: LocalRedisShard): string {
    return this.#id(this.#own(server));
  }

  /** The store URL RedisKV takes, every server a seed: `"127.0.0.1:p1,127.0.0.1:p2,…"`. */
  get url(): string {
    return this.#servers.map((server) => server.address).join(',');
  }

  /** The `redis-server` binary the servers run. */
  get binary(): string {
    return this.#binary;
  }

  /** The hash slot of `key` (`CLUSTER KEYSLOT` on a running server). */
  async slotOf(key: string): Promise<number> {
    return Number(await redisCommand(this.#answering().port, ['CLUSTER', 'KEYSLOT', key]));
  }

  /**
   * The master that serves `slot` now, as a running server tells (`CLUSTER SLOTS`). Rejects when
   * no server runs or no master serves the slot.
   */
  async shardForSlot(slot: number): Promise<LocalRedisShard> {
    const ranges = (await redisCommand(this.#answering().port, ['CLUSTER', 'SLOTS'])) as [number, number, [string, number, ...unknown[]]][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    const owner = range && this.#servers.find((server) => server.port === Number(range[2][1]));
    if (!owner) throw new Error(`no master serves slot ${slot}`);
    return owner;
  }

  /**
   * The master that serves `key` now, as a running server tells (`CLUSTER KEYSLOT`, then
   * `CLUSTER SLOTS`). Rejects when no server runs or no master serves the key's slot.
   */
  async shardFor(key: string): Promise<LocalRedisShard> {
    return this.shardForSlot(await this.slotOf(key));
  }

  /**
   * Fails `master` over to its first running replica with `CLUSTER FAILOVER` (`FORCE` or
   * `TAKEOVER` for those modes) sent to the replica, and resolves once the replica serves the
   * master's slots, the old master (when running) is its replica in sync, and every running
   * server agrees.
   *
   * @throws Error when `master` is not a master or has no running replica, or when the topology
   *   has not settled within `readyTimeoutMs`.
   */
  async failover(master: LocalRedisShard, mode: LocalRedisFailoverMode = 'graceful'): Promise<LocalRedisClusterFailover> {
    const from = this.#ownMaster(master);
    const [to] = this.#runningReplicas(from);
    const started = performance.now();
    await redisCommand(to.port, ['CLUSTER', 'FAILOVER', ...(mode === 'graceful' ? [] : [mode.toUpperCase()])]);
    await this.#settle(`${to.address} to take over from ${from.address} (CLUSTER FAILOVER ${mode})`, (lines) => {
      const old = lines.find((line) => line.port === from.port);
      return servesSlots(lines, to.port) && (!from.running || this.#portOfMaster(lines, old) === to.port);
    });
    return { from, to, waitedMs: performance.now() - started };
  }

  /**
   * SIGKILLs `master` and resolves once the cluster has promoted one of its replicas (it notices
   * the master is gone after `nodeTimeoutMs`, then the replica waits 0.5–1 s before it asks for
   * votes: a few seconds with `nodeTimeoutMs` 1000) and every running server agrees. With
   * `writesToLose`, the writes it makes are acknowledged by the master but never reach the
   * replica. The killed server rejoins as a replica of the new master on {@link restart}.
   *
   * @throws Error when `master` is not a master or has no running replica, or when no replica
   *   took over within `readyTimeoutMs`.
   */
  async killMaster(master: LocalRedisShard, options: LocalRedisKillMasterOptions = {}): Promise<LocalRedisClusterFailover> {
    const from = this.#ownMaster(master);
    const candidates = this.#runningReplicas(from);
    const ports = new Set(candidates.map((replica) => replica.port));
    let started = performance.now();
    if (options.writesToLose) {
      await this.#withReplicationHeld(candidates, async () => {
        await options.writesToLose!();
        started = performance.now();
        await from.process.kill();
        await waitFor(async () => (await Promise.all(candidates.map((replica) => this.#role(replica)))).includes('master'), {
          what: `a replica of ${from.address} (killed) to be promoted`,
          timeoutMs: this.#timeoutMs,
        });
      });
    } else {
      await from.process.kill();
    }
    this.#paused.delete(from);
    let to: RedisServer | undefined;
    await this.#settle(`a replica of ${from.address} (killed) to be promoted`, (lines) => {
      const promoted = lines.find((line) => ports.has(line.port) && line.flags.has('master') && line.slots.length > 0);
      to = promoted && this.#servers.find((server) => server.port === promoted.port);
      return to !== undefined;
    });
    this.#masterOf.set(from, to);
    return { from, to: to!, waitedMs: performance.now() - started };
  }

  /**
   * Moves `slot` to the master `to` while clients use it, as `redis-cli --cluster reshard` does:
   * `CLUSTER SETSLOT <slot> IMPORTING` on `to` and `MIGRATING` on the slot's master, then every
   * key of the slot is `MIGRATE`d at once, so that for `holdMs` the old master answers `ASK` for
   * all of them (the slot still its own, the keys on `to`); then any key left is moved and
   * `CLUSTER SETSLOT <slot> NODE` is sent to `to`, the old master and every other master.
   * Resolves once every running server agrees that `to` serves the slot and none migrates it.
   *
   * @throws Error when `to` is not a master or already serves the slot, or when the move fails
   *   or does not settle within `readyTimeoutMs` (the slot is then left as the failing step left it).
   */
  async migrateSlot(slot: number, to: LocalRedisShard, options: LocalRedisSlotMigrationOptions = {}): Promise<LocalRedisSlotMigration> {
    if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) throw new ConfigError('slot', slot, `slot must be an integer from 0 to ${SLOTS - 1}`);
    const target = this.#ownMaster(to);
    const source = this.#own(await this.shardForSlot(slot));
    if (source === target) throw new Error(`${target.address} already serves slot ${slot}`);
    const started = performance.now();
    await redisCommand(target.port, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', this.#id(source)]);
    await redisCommand(source.port, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', this.#id(target)]);
    let keys = await this.#moveKeys(slot, source, target);
    await delay(options.holdMs ?? 0);
    keys += await this.#moveKeys(slot, source, target);
    const others = this.shards.filter((master) => master !== source && master !== target && master.running);
    for (const server of [target, source, ...others]) await redisCommand(server.port, ['CLUSTER', 'SETSLOT', slot, 'NODE', this.#id(target)]);
    await this.#settle(`slot ${slot} to move from ${source.address} to ${target.address}`, (lines) => slotOwner(lines, slot) === target.port);
    return { slot, from: source, to: target, keys, tookMs: performance.now() - started };
  }

  /**
   * Resolves once every running (not paused) server lists the same masters, replicas and slots,
   * sees the others as healthy, migrates no slot, and every replica's link to its master is up;
   * {@link shards} then tells the roles agreed. For use after a raw {@link kill} or
   * {@link restart}: with replicas, the cluster fails a killed master over by itself.
   */
  async settle(timeoutMs = this.#timeoutMs): Promise<void> {
    await this.#settle('the cluster to settle', () => true, timeoutMs);
  }

  /**
   * SIGKILLs a server, as a crash (a paused one too); resolves once it is gone. A master's slots
   * stay assigned to it, so their keys are unavailable while the other shards keep serving;
   * with replicas, the cluster promotes one of them after a few seconds ({@link killMaster}
   * waits for that). Does nothing when it is not running.
   */
  async kill(server: LocalRedisShard): Promise<void> {
    const own = this.#own(server);
    await own.process.kill();
    this.#paused.delete(own);
  }

  /** Freezes a server with SIGSTOP: its connections stay open, and nothing answers. */
  pause(server: LocalRedisShard): void {
    const own = this.#own(server);
    own.process.signal('SIGSTOP');
    if (own.running) this.#paused.add(own);
  }

  /** Undoes {@link pause} with SIGCONT. */
  resume(server: LocalRedisShard): void {
    const own = this.#own(server);
    own.process.signal('SIGCONT');
    this.#paused.delete(own);
  }

  /**
   * Starts a server again on its port (killing it first when it runs) and resolves once it
   * answers PING: it rejoins with its old node id and slots (from its `nodes.conf`) and no data.
   * Until the others have seen it back (about a second) it may answer `CLUSTERDOWN`. With
   * replicas it resolves only once the cluster has {@link settle}d: a master that was replaced
   * rejoins as a replica of the one that took over, in sync. Rejects when the port was taken
   * meanwhile, or after {@link stop}.
   */
  async restart(server: LocalRedisShard): Promise<void> {
    const own = this.#own(server);
    if (this.#stopped) throw new Error('LocalRedisCluster: restart() after stop()');
    await own.process.kill();
    this.#paused.delete(own);
    await own.process.start();
    if (this.#groups.some((group) => group.length > 1)) await this.#settle(`${own.address} to rejoin the cluster`, () => true);
  }

  /** Kills every server and removes the temp directory. Idempotent. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.#servers.map((server) => server.process.kill()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  /**
   * Polls `CLUSTER NODES` on every running, unpaused server until they all describe the same
   * topology of those servers, see them all healthy, migrate no slot, every replica's link is up,
   * and `expected` holds of it; then remembers the roles. Rejects after `timeoutMs` with what each
   * server last said.
   */
  async #settle(what: string, expected: (lines: readonly ClusterNodeLine[]) => boolean, timeoutMs = this.#timeoutMs): Promise<void> {
    let agreed: readonly ClusterNodeLine[] | undefined;
    let last = '';
    await waitFor(
      async () => {
        const running = this.#servers.filter((server) => server.running && !this.#paused.has(server));
        const ports = new Set(running.map((server) => server.port));
        const views = await Promise.all(running.map(async (server) => parseClusterNodes(String(await redisCommand(server.port, ['CLUSTER', 'NODES'], { timeoutMs: 1000 })))));
        const described = views.map((lines) => describeTopology(lines, ports));
        last = running.map((server, i) => `  ${server.port} sees ${described[i]}`).join('\n');
        if (new Set(described).size !== 1) return false;
        const settled = views.every((lines) => {
          const known = lines.filter((line) => ports.has(line.port));
          return known.length === ports.size && known.every((line) => isHealthy(line) && !line.migrating);
        });
        if (!settled || !expected(views[0]!)) return false;
        if (!(await this.#replicasInSync(views[0]!, ports))) return false;
        agreed = views[0];
        return true;
      },
      { what: () => `${what}; the servers last said:\n${last}`, timeoutMs, everyMs: 100 },
    );
    for (const server of this.#servers) {
      const line = agreed!.find((l) => l.port === server.port);
      if (!server.running || !line) continue;
      const masterPort = this.#portOfMaster(agreed!, line);
      this.#masterOf.set(server, masterPort === undefined ? undefined : this.#servers.find((s) => s.port === masterPort));
    }
  }

  /** True when every replica in `lines` on `ports` reports `master_link_status:up`. */
  async #replicasInSync(lines: readonly ClusterNodeLine[], ports: ReadonlySet<number>): Promise<boolean> {
    const replicas = lines.filter((line) => ports.has(line.port) && !line.flags.has('master'));
    const infos = await Promise.all(replicas.map((line) => redisCommand(line.port, ['INFO', 'replication'], { timeoutMs: 1000 })));
    return infos.every((info) => /master_link_status:up/.test(String(info)));
  }

  /**
   * Runs `work` with `replicas` applying nothing their master sends (`CLIENT PAUSE … WRITE` on
   * each: the replication stream is read but its writes wait), then `CLIENT UNPAUSE`s them. Writes
   * still waiting when the master's link drops are discarded with it, so a replica promoted in
   * between misses them.
   */
  async #withReplicationHeld(replicas: readonly RedisServer[], work: () => Promise<void>): Promise<void> {
    const holdMs = this.#timeoutMs + 10_000;
    try {
      await Promise.all(replicas.map((replica) => redisCommand(replica.port, ['CLIENT', 'PAUSE', holdMs, 'WRITE'])));
      await work();
    } finally {
      await Promise.all(replicas.map((replica) => redisCommand(replica.port, ['CLIENT', 'UNPAUSE']).catch(() => {})));
    }
  }

  /** `master` or `slave`, as `server` says (`ROLE`). */
  async #role(server: RedisServer): Promise<string> {
    return String(((await redisCommand(server.port, ['ROLE'], { timeoutMs: 1000 })) as unknown[])[0]);
  }

  /** `MIGRATE`s every key of `slot` still on `source` to `target`, in batches; resolves with how many. */
  async #moveKeys(slot: number, source: RedisServer, target: RedisServer): Promise<number> {
    let moved = 0;
    for (;;) {
      const keys = (await redisCommand(source.port, ['CLUSTER', 'GETKEYSINSLOT', slot, MIGRATE_BATCH])) as string[];
      if (keys.length === 0) return moved;
      await redisCommand(source.port, ['MIGRATE', target.host, target.port, '', 0, 5000, 'KEYS', ...keys], { timeoutMs: 6000 });
      moved += keys.length;
    }
  }

  /** The port of `line`'s master, when `line` is a replica's. */
  #portOfMaster(lines: readonly ClusterNodeLine[], line: ClusterNodeLine | undefined): number | undefined {
    if (!line || line.masterId === undefined) return undefined;
    return lines.find((l) => l.id === line.masterId)?.port;
  }

  /** The running, unpaused replicas of `master`, in start order; throws when there is none. */
  #runningReplicas(master: RedisServer): [RedisServer, ...RedisServer[]] {
    const replicas = this.#servers.filter((server) => this.#masterOf.get(server) === master && server.running && !this.#paused.has(server));
    if (replicas.length === 0) throw new Error(`${master.address} has no running replica to take over`);
    return replicas as [RedisServer, ...RedisServer[]];
  }

  /** A running, unpaused server to ask; throws when there is none. */
  #answering(): RedisServer {
    const server = this.#servers.find((s) => s.running && !this.#paused.has(s));
    if (!server) throw new Error('no server of the cluster is running');
    return server;
  }

  #id(server: RedisServer): string {
    return this.#ids.get(server)!;
  }

  #ownMaster(server: LocalRedisShard): RedisServer {
    const own = this.#own(server);
    if (this.#masterOf.get(own) !== undefined) throw new Error(`${own.address} is not a master now`);
    return own;
  }

  #own(server: LocalRedisShard): RedisServer {
    const own = this.#servers.find((candidate) => candidate === server);
    if (!own) throw new Error(`${server.address} is not a server of this cluster`);
    return own;
  }
}

/** True when the master on `port` serves at least one slot in `lines`. */
function servesSlots(lines: readonly ClusterNodeLine[], port: number): boolean {
  return lines.some((line) => line.port === port && line.flags.has('master') && line.slots.length > 0);
}

/**
 * Issue 29, at the store layer: RedisKV on a real Redis Cluster of 3 masters with 1 replica each
 * (`cluster-node-timeout 1000`) through a graceful failover of a shard and a live resharding of a
 * slot, while two keys of that shard (in two slots, as `leader 0` and `leader 1` of one compound
 * key may be) are read together and written every 20 ms. Every operation must succeed and every
 * read must return the latest value acknowledged before it started: a redirection (`MOVED`, `ASK`)
 * is routing, never "key unavailable".
 *
 * Two clients: the store opened from its URL as `roster node` opens it (`connectStore`), and a
 * caller-supplied ioredis `Cluster` with autopipelining (`RedisKV.connect({ client })`), whose
 * pipelines hand redirections with mixed replies to RedisKV, which must follow them itself.
 * Whether the situation was reached is checked too: the shard's master changed, the slot's owner
 * changed, and the servers sent `MOVED`/`ASK` replies (`INFO errorstats`).
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompoundKey, Namespace, connectStore, type KV } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { LocalRedisCluster, redisCommand, type LocalRedisShard } from '@roster/testing';
import { redisServerBinary } from './support/redis.js';

/** One operation's bound: `roster node`'s at I = 1000 ms (τ = I/2), wide for a loaded machine. */
const COMMAND_TIMEOUT_MS = 500;
/** How often the two keys are read together and written. */
const TICK_MS = 20;
/** Traffic before the change, and after it has settled. */
const BEFORE_MS = 500;
const AFTER_MS = 1000;
/** How long the slot stays MIGRATING/IMPORTING with its keys already moved. */
const HOLD_MS = 300;

/** What went wrong in one operation. */
interface Failure {
  readonly op: 'get' | 'set';
  readonly key: string;
  readonly error: string;
  readonly atMs: number;
}

/** A read that returned an older value than one acknowledged before it started. */
interface StaleRead {
  readonly key: string;
  readonly read: number;
  readonly acknowledged: number;
}

/**
 * Every {@link TICK_MS}, in one tick: `get` both keys and `set` both to the next number. Records
 * failures, stale reads and the slowest operation.
 */
class Traffic {
  reads = 0;
  writes = 0;
  slowestMs = 0;
  readonly failures: Failure[] = [];
  readonly stale: StaleRead[] = [];
  readonly #acknowledged: Record<string, number>;
  #n = 0;
  #stopped = false;
  #loop: Promise<void> | undefined;
  readonly #started = performance.now();

  constructor(
    private readonly kv: KV,
    private readonly keys: readonly [string, string],
  ) {
    this.#acknowledged = Object.fromEntries(keys.map((key) => [key, 0]));
  }

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      const tick = performance.now();
      await this.#tick();
      await sleep(Math.max(0, TICK_MS - (performance.now() - tick)));
    }
  }

  async #tick(): Promise<void> {
    const n = ++this.#n;
    const floor = this.keys.map((key) => this.#acknowledged[key]!);
    const reads = this.keys.map((key, i) =>
      this.#timed(this.kv.get(key)).then(
        (value) => {
          this.reads++;
          const read = Number(value ?? 0);
          if (read < floor[i]!) this.stale.push({ key, read, acknowledged: floor[i]! });
        },
        (error: unknown) => this.#failed('get', key, error),
      ),
    );
    const writes = this.keys.map((key) =>
      this.#timed(this.kv.set(key, String(n))).then(
        () => {
          this.writes++;
          this.#acknowledged[key] = Math.max(this.#acknowledged[key]!, n);
        },
        (error: unknown) => this.#failed('set', key, error),
      ),
    );
    await Promise.all([...reads, ...writes]);
  }

  async #timed<T>(op: Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      return await op;
    } finally {
      this.slowestMs = Math.max(this.slowestMs, performance.now() - started);
    }
  }

  #failed(op: 'get' | 'set', key: string, error: unknown): void {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    this.failures.push({ op, key, error: text, atMs: Math.round(performance.now() - this.#started) });
  }

  describe(): string {
    const failures = this.failures.slice(0, 10).map((f) => `  ${f.atMs} ms ${f.op} ${f.key}: ${f.error}`);
    const stale = this.stale.slice(0, 10).map((s) => `  stale ${s.key}: read ${s.read} after ${s.acknowledged} was acknowledged`);
    return [`${this.reads} reads, ${this.writes} writes, ${this.failures.length} failures, ${this.stale.length} stale reads, slowest ${Math.round(this.slowestMs)} ms`, ...failures, ...stale].join('\n');
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The `MOVED` and `ASK` replies every running server has sent so far (`INFO errorstats`). */
async function redirections(cluster: LocalRedisCluster): Promise<{ moved: number; ask: number }> {
  let moved = 0;
  let ask = 0;
  for (const server of cluster.servers.filter((s) => s.running)) {
    const info = String(await redisCommand(server.port, ['INFO', 'errorstats']));
    moved += Number(/errorstat_MOVED:count=(\d+)/.exec(info)?.[1] ?? 0);
    ask += Number(/errorstat_ASK:count=(\d+)/.exec(info)?.[1] ?? 0);
  }
  return { moved, ask };
}

/**
 * Nonces 0 and 1 of the leader key of a fresh namespace (`roster/<cluster>/test/leader 0`, `… 1`)
 * that one master serves, in two slots.
 */
async function keysOnOneShard(cluster: LocalRedisCluster, prefix: string): Promise<{ keys: [string, string]; master: LocalRedisShard }> {
  for (let i = 0; i < 1000; i++) {
    const leader = new CompoundKey(new Namespace(`${prefix}${i}`, 'test').key('leader'));
    const keys: [string, string] = [leader.current, `${leader.base} 1`];
    const [a, b] = await Promise.all(keys.map((key) => cluster.shardFor(key)));
    const [slotA, slotB] = await Promise.all(keys.map((key) => cluster.slotOf(key)));
    if (a === b && slotA !== slotB) return { keys, master: a! };
  }
  throw new Error('no two nonces of one leader key on one shard');
}

/**
 * Runs traffic on `keys` through `change`: {@link BEFORE_MS} before it, {@link AFTER_MS} after it
 * resolved (it resolves once every server agrees on the new topology).
 */
async function through(cluster: LocalRedisCluster, kv: KV, keys: readonly [string, string], change: () => Promise<void>) {
  const before = await redirections(cluster);
  const traffic = new Traffic(kv, keys);
  traffic.start();
  try {
    await sleep(BEFORE_MS);
    await change();
    await sleep(AFTER_MS);
  } finally {
    await traffic.stop();
  }
  const after = await redirections(cluster);
  return { traffic, moved: after.moved - before.moved, ask: after.ask - before.ask };
}

/** A caller's ioredis Cluster client with autopipelining on, and otherwise Roster's fail-fast settings. */
function autopipelinedClient(cluster: LocalRedisCluster): Cluster {
  const client = new Cluster(
    cluster.servers.map(({ host, port }) => ({ host, port })),
    {
      enableAutoPipelining: true,
      maxRedirections: 4,
      retryDelayOnFailover: 50,
      retryDelayOnClusterDown: 50,
      retryDelayOnTryAgain: 50,
      redisOptions: { commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false },
    },
  );
  client.on('error', () => {}); // RedisKV listens too; this one keeps ioredis from printing them
  return client;
}

/** How many redirections reached RedisKV and were followed by it (`undefined` before issue 29's fix). */
function followedByKV(kv: KV): number | undefined {
  return (kv as { redirections?: number }).redirections;
}

describe('RedisKV through a failover and a live resharding on a Redis Cluster of 3 masters and 3 replicas', () => {
  let cluster: LocalRedisCluster;

  beforeAll(async () => {
    const binary = redisServerBinary();
    if (!binary) throw new Error('needs redis-server (apt-get install redis-server, or set ROSTER_REDIS_SERVER)');
    cluster = await LocalRedisCluster.start({ binary, replicas: 1, nodeTimeoutMs: 1000 });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  const clients = [
    { name: 'the store opened from its URL, as roster node opens it', open: async () => ({ kv: await connectStore(cluster.url, { connectTimeoutMs: 5000, commandTimeoutMs: COMMAND_TIMEOUT_MS }), client: undefined }) },
    {
      name: 'a caller-supplied ioredis Cluster with autopipelining',
      open: async () => {
        const client = autopipelinedClient(cluster);
        try {
          return { kv: await RedisKV.connect({ client }), client };
        } catch (error) {
          client.disconnect();
          throw error;
        }
      },
    },
  ];

  describe.each(clients)('$name', ({ open }) => {
    it('a graceful failover of the shard of both keys: every read and write succeeds, every read is the latest', { timeout: 60_000 }, async () => {
      const { keys, master } = await keysOnOneShard(cluster, `failover${clients.findIndex((c) => c.open === open)}-`);
      const { kv, client } = await open();
      try {
        let promoted: LocalRedisShard | undefined;
        const r = await through(cluster, kv, keys, async () => {
          promoted = (await cluster.failover(master, 'graceful')).to;
        });
        const report = `${r.traffic.describe()}\nMOVED ${r.moved}, ASK ${r.ask} sent by the servers; ${followedByKV(kv) ?? '(not counted)'} followed by RedisKV`;
        console.info(`graceful failover ${master.address} → ${promoted?.address}: ${report}`);
        // The situation was reached: another server serves both keys now.
        expect(promoted).toBeDefined();
        expect(promoted).not.toBe(master);
        expect(await cluster.shardFor(keys[0])).toBe(promoted);
        expect(await cluster.shardFor(keys[1])).toBe(promoted);
        if (client) expect(r.moved + r.ask, 'redirections sent to the autopipelined client').toBeGreaterThan(0);
        // RedisKV's own client sends commands one by one, so ioredis redirects every one itself.
        if (!client) expect(followedByKV(kv), report).toBe(0);
        // The claim.
        expect(r.traffic.failures.length, `failed operations:\n${report}`).toBe(0);
        expect(r.traffic.stale.length, `stale reads:\n${report}`).toBe(0);
        expect(r.traffic.reads).toBeGreaterThan(50);
      } finally {
        await kv.close();
        client?.disconnect();
      }
    });

    it(`a live resharding of one key's slot held MIGRATING/IMPORTING for ${HOLD_MS} ms: every read and write succeeds, every read is the latest`, { timeout: 60_000 }, async () => {
      const { keys, master } = await keysOnOneShard(cluster, `reshard${clients.findIndex((c) => c.open === open)}-`);
      const target = cluster.shards.find((shard) => shard !== master)!;
      const slot = await cluster.slotOf(keys[1]);
      const { kv, client } = await open();
      try {
        let moved = 0;
        const r = await through(cluster, kv, keys, async () => {
          moved = (await cluster.migrateSlot(slot, target, { holdMs: HOLD_MS })).keys;
        });
        const report = `${r.traffic.describe()}\nMOVED ${r.moved}, ASK ${r.ask} sent by the servers; ${followedByKV(kv) ?? '(not counted)'} followed by RedisKV`;
        console.info(`slot ${slot} ${master.address} → ${target.address} (${moved} keys): ${report}`);
        if (!client) expect(followedByKV(kv), report).toBe(0);
        // The situation was reached: the slot moved with its key, and the old master answered ASK while it was held.
        expect(await cluster.shardFor(keys[1])).toBe(target);
        expect(await cluster.shardFor(keys[0])).toBe(master);
        expect(moved).toBeGreaterThanOrEqual(1);
        expect(r.ask, 'ASK replies during the hold').toBeGreaterThan(0);
        // The claim.
        expect(r.traffic.failures.length, `failed operations:\n${report}`).toBe(0);
        expect(r.traffic.stale.length, `stale reads:\n${report}`).toBe(0);
        expect(r.traffic.reads).toBeGreaterThan(50);
      } finally {
        await kv.close();
        client?.disconnect();
      }
    });
  });
  it('a caller\'s autopipelined client whose slot table is stale: two reads in one tick come back with two different MOVED replies, which ioredis does not follow; RedisKV does, and both succeed', { timeout: 60_000 }, async () => {
    const { keys, master } = await keysOnOneShard(cluster, 'mixed-moved-');
    const target = cluster.shards.find((shard) => shard !== master)!;
    const client = autopipelinedClient(cluster);
    const kv = await RedisKV.connect({ client });
    try {
      await Promise.all(keys.map((key, i) => kv.set(key, `v${i}`)));
      // Both slots move to another master; this client is not told (it refreshes only on a redirection).
      for (const key of keys) await cluster.migrateSlot(await cluster.slotOf(key), target);
      const before = await redirections(cluster);
      const values = await Promise.all(keys.map((key) => kv.get(key)));
      const after = await redirections(cluster);
      // The situation: the old master answered MOVED (two different replies, one per slot), and RedisKV followed them.
      expect(after.moved - before.moved).toBeGreaterThanOrEqual(2);
      expect(followedByKV(kv)).toBeGreaterThanOrEqual(1);
      // The claim.
      expect(values).toEqual(['v0', 'v1']);
    } finally {
      await kv.close();
      client.disconnect();
    }
  });

  it('an ASKING that times out (the importing master frozen mid-resharding) fails its operation and leaves no unhandled rejection', { timeout: 60_000 }, async () => {
    const { keys, master: source } = await keysOnOneShard(cluster, 'asking-');
    const key = keys[0];
    const target = cluster.shards.find((shard) => shard !== source)!;
    const slot = await cluster.slotOf(key);
    const kv = await connectStore(cluster.url, { connectTimeoutMs: 5000, commandTimeoutMs: 200 });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await kv.set(key, 'before');
      // The slot half moved: its key already on the target, which is frozen, so ioredis' ASKING there times out.
      await redisCommand(target.port, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', cluster.nodeId(source)]);
      await redisCommand(source.port, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', cluster.nodeId(target)]);
      await redisCommand(source.port, ['MIGRATE', target.host, target.port, key, 0, 5000]);
      const { ask: askBefore } = await redirections(cluster);
      cluster.pause(target);
      const outcome = await kv.get(key).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      await sleep(500);
      cluster.resume(target);
      // The situation: the source answered ASK, and the read could not complete on the frozen target.
      expect((await redirections(cluster)).ask).toBeGreaterThan(askBefore);
      expect(outcome).toHaveProperty('error');
      // The claim.
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      cluster.resume(target);
      for (const server of [target, source, ...cluster.shards.filter((s) => s !== source && s !== target)]) {
        await redisCommand(server.port, ['CLUSTER', 'SETSLOT', slot, 'NODE', cluster.nodeId(target)]);
      }
      await cluster.settle();
      await kv.close();
    }
  });
});

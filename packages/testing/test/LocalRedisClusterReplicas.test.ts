import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@roster/kv-adapter';
import { findRedisServer, LocalRedisCluster, redisCommand } from '../src/index.js';

/** The machine's `redis-server` ({@link findRedisServer}). */
function redisServer(): string {
  const found = findRedisServer();
  if (!found) throw new Error('these tests need redis-server (apt-get install redis-server, or set ROSTER_REDIS_SERVER)');
  return found;
}

/** `master` or `slave`, as the server on `port` says. */
async function role(port: number): Promise<string> {
  return String(((await redisCommand(port, ['ROLE'])) as unknown[])[0]);
}

describe('LocalRedisCluster with replicas', () => {
  let cluster: LocalRedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await LocalRedisCluster.start({ binary: redisServer(), replicas: 1, nodeTimeoutMs: 1000 });
    client = new Cluster(cluster.servers.map(({ host, port }) => ({ host, port })));
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('starts 3 masters with a replica each, in sync, and lists every server in the URL', async () => {
    expect(cluster.servers).toHaveLength(6);
    expect(cluster.shards).toEqual(cluster.servers.slice(0, 3));
    expect(cluster.url).toBe(cluster.servers.map((server) => server.address).join(','));
    for (const [i, master] of cluster.shards.entries()) {
      expect(cluster.replicasOf(master)).toEqual([cluster.servers[3 + i]]);
      expect(await role(master.port)).toBe('master');
      expect(String(await redisCommand(cluster.servers[3 + i]!.port, ['INFO', 'replication']))).toMatch(/master_link_status:up/);
    }
    expect(new Set(cluster.servers.map((server) => cluster.nodeId(server))).size).toBe(6);
  });

  it.each(['graceful', 'force', 'takeover'] as const)('failover(%s) promotes the replica, keeps the data, and shards follows', { timeout: 60_000 }, async (mode) => {
    await client.set('failover-key', mode);
    const master = await cluster.shardFor('failover-key');
    const index = cluster.shards.indexOf(master);
    const [replica] = cluster.replicasOf(master);
    const { from, to } = await cluster.failover(master, mode);
    expect(from).toBe(master);
    expect(to).toBe(replica);
    expect(cluster.shards[index]).toBe(replica);
    expect(cluster.replicasOf(replica!)).toEqual([master]);
    expect(await role(replica!.port)).toBe('master');
    expect(await role(master.port)).toBe('slave');
    expect(await cluster.shardFor('failover-key')).toBe(replica);
    expect(await client.get('failover-key')).toBe(mode);
  });

  it('migrateSlot moves a slot and its keys to another master, answering ASK while it is held', { timeout: 60_000 }, async () => {
    await client.set('moving-key', 'value');
    const slot = await cluster.slotOf('moving-key');
    const source = await cluster.shardFor('moving-key');
    const target = cluster.shards.find((shard) => shard !== source)!;
    const migration = cluster.migrateSlot(slot, target, { holdMs: 500 });
    // During the hold the old master sends clients to the new one for that key.
    let asked = false;
    for (let i = 0; i < 40 && !asked; i++) {
      asked = await redisCommand(source.port, ['GET', 'moving-key']).then(
        () => false,
        (error: Error) => /^ASK /.test(error.message),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const { from, to, keys } = await migration;
    expect(asked).toBe(true);
    expect([from, to, keys]).toEqual([source, target, 1]);
    expect(await cluster.shardFor('moving-key')).toBe(target);
    expect(await client.get('moving-key')).toBe('value');
    await expect(cluster.migrateSlot(slot, target)).rejects.toThrow(/already serves/);
  });

  it('killMaster waits for the promotion, loses the writes made with replication held, and restart brings the master back as a replica', { timeout: 60_000 }, async () => {
    await client.set('lost-key', 'kept');
    const master = await cluster.shardFor('lost-key');
    const [replica] = cluster.replicasOf(master);
    await new Promise((resolve) => setTimeout(resolve, 200)); // 'kept' reaches the replica
    const { from, to } = await cluster.killMaster(master, {
      writesToLose: async () => {
        await redisCommand(master.port, ['SET', 'lost-key', 'lost']);
        expect(await redisCommand(master.port, ['GET', 'lost-key'])).toBe('lost');
      },
    });
    expect([from, to]).toEqual([master, replica]);
    expect(master.running).toBe(false);
    expect(await cluster.shardFor('lost-key')).toBe(replica);
    expect(await client.get('lost-key')).toBe('kept');
    expect(await redisCommand(replica!.port, ['SET', 'lost-key', 'written after'])).toBe('OK'); // unpaused

    await cluster.restart(master);
    expect(cluster.replicasOf(replica!)).toEqual([master]);
    expect(await role(master.port)).toBe('slave');
  });

  it('rejects a failover of a server that is not a master, and bad options', async () => {
    const replica = cluster.replicasOf(cluster.shards[0]!)[0]!;
    await expect(cluster.failover(replica)).rejects.toThrow(/not a master/);
    await expect(LocalRedisCluster.start({ binary: redisServer(), replicas: -1 })).rejects.toBeInstanceOf(ConfigError);
    await expect(cluster.migrateSlot(16384, cluster.shards[0]!)).rejects.toBeInstanceOf(ConfigError);
  });
});

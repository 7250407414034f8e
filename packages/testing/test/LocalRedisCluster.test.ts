import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@roster/kv-adapter';
import { findRedisServer, LocalRedisCluster, redisCommand, waitFor } from '../src/index.js';

/** The machine's `redis-server` ({@link findRedisServer}). */
function redisServer(): string {
  const found = findRedisServer();
  if (!found) throw new Error('these tests need redis-server (apt-get install redis-server, or set ROSTER_REDIS_SERVER)');
  return found;
}

/** True while a process of that id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('LocalRedisCluster', () => {
  let cluster: LocalRedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await LocalRedisCluster.start({ binary: redisServer() });
    client = new Cluster(cluster.shards.map((shard) => ({ host: shard.host, port: shard.port })));
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('starts 3 masters on loopback that split the 16384 slots and serve keys of every shard', async () => {
    expect(cluster.shards).toHaveLength(3);
    expect(cluster.url).toBe(cluster.shards.map((shard) => `127.0.0.1:${shard.port}`).join(','));
    const owners = new Set<number>();
    for (let i = 0; owners.size < 3 && i < 100; i++) {
      await client.set(`key ${i}`, `value ${i}`);
      expect(await client.get(`key ${i}`)).toBe(`value ${i}`);
      owners.add((await cluster.shardFor(`key ${i}`)).port);
    }
    expect(owners.size).toBe(3);
  });

  it('kill() takes one shard down while the others serve, and restart() brings it back empty', async () => {
    const shard = await cluster.shardFor('victim');
    await client.set('victim', 'before');
    const other = await findKeyOn(cluster, (port) => port !== shard.port);
    await cluster.kill(shard);
    expect(shard.running).toBe(false);
    await expect(redisCommand(shard.port, ['PING'], { timeoutMs: 500 })).rejects.toThrow();
    await client.set(other, 'still served');
    expect(await client.get(other)).toBe('still served');

    await cluster.restart(shard);
    expect(shard.running).toBe(true);
    await waitFor(async () => (await redisCommand(shard.port, ['GET', 'victim'])) === null, { what: 'the restarted shard to serve its slots', timeoutMs: 20_000 });
    expect(await redisCommand(shard.port, ['SET', 'victim', 'after'])).toBe('OK');
    expect((await cluster.shardFor('victim')).port).toBe(shard.port);
  });

  it('pause() freezes a shard and resume() lets it answer again', async () => {
    const shard = cluster.shards[0]!;
    cluster.pause(shard);
    await expect(redisCommand(shard.port, ['PING'], { timeoutMs: 300 })).rejects.toThrow();
    cluster.resume(shard);
    expect(await redisCommand(shard.port, ['PING'])).toBe('PONG');
  });

  it('stop() leaves no server process behind, and is idempotent', async () => {
    const own = await LocalRedisCluster.start({ binary: redisServer(), masters: 1 });
    const pids = own.shards.map((shard) => shard.pid!);
    own.pause(own.shards[0]!);
    await own.stop();
    await own.stop();
    expect(pids.filter(alive)).toEqual([]);
    expect(own.shards.every((shard) => !shard.running)).toBe(true);
    await expect(own.restart(own.shards[0]!)).rejects.toThrow(/after stop/);
  });

  it('rejects a bad option with a ConfigError, and a missing binary with its cause', async () => {
    await expect(LocalRedisCluster.start({ binary: redisServer(), masters: 0 })).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalRedisCluster.start({ binary: '' })).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalRedisCluster.start({ binary: join('no', 'such', 'redis-server') })).rejects.toThrow(/cannot run/);
  });
});

/** A key whose shard's port passes `accept`. */
async function findKeyOn(cluster: LocalRedisCluster, accept: (port: number) => boolean): Promise<string> {
  for (let i = 0; i < 100; i++) if (accept((await cluster.shardFor(`other ${i}`)).port)) return `other ${i}`;
  throw new Error('no such key among 100');
}

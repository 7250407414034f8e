/**
 * Namespaces on one real redis-server: groups with different names, or one group in different
 * environments, never see each other, and names that could reach outside their prefix are
 * refused before anything is written.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createNode, type RosterNode } from '@roster/election';
import { ConfigError } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { MemoryLogger } from '@roster/testing';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, runRoster, startRoster, until } from './support/rosterNode.js';

const I = 100;
const T = 600;
const WAIT = 20_000;

let redis: RedisTestServer;
let raw: Redis;

beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.port, redis.host, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await killAllNodes();
  raw?.disconnect();
  await redis?.stop();
});

async function allKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await raw.scan(cursor, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

describe('namespaces on one redis-server', () => {
  it('three groups (two names, and one name in two environments) each elect their own leader and see only their own members', async () => {
    const stores: RedisKV[] = [];
    const nodes: { node: RosterNode; group: string }[] = [];
    const groups = { 'billing/dev': ['b1', 'b2'], 'shipping/dev': ['s1', 's2'], 'billing/prod': ['p1'] } as const;
    try {
      for (const [group, ids] of Object.entries(groups)) {
        const [name, env] = group.split('/') as [string, string];
        for (const id of ids) {
          const kv = await RedisKV.connect({ url: redis.url });
          stores.push(kv);
          const node = createNode({ store: kv, group: name, env, id, intervalMs: I, timeoutMs: T, logger: new MemoryLogger() });
          nodes.push({ node, group });
          await node.start();
        }
      }
      const settled = (): boolean =>
        nodes.every(({ node, group }) => node.leader !== undefined && node.memberIds.join() === [...groups[group as keyof typeof groups]].sort().join());
      const start = performance.now();
      while (!settled()) {
        if (performance.now() - start > WAIT) throw new Error(nodes.map(({ node, group }) => `${group} ${node.id}: leader ${node.leader?.id} members ${node.memberIds}`).join('\n'));
        await delay(20);
      }
      await delay(5 * I);
      expect(settled()).toBe(true);
      for (const [group, ids] of Object.entries(groups)) {
        const own = nodes.filter((n) => n.group === group);
        expect(own.filter((n) => n.node.isLeader())).toHaveLength(1);
        expect(new Set(own.map((n) => n.node.leader?.id))).toEqual(new Set([own.find((n) => n.node.isLeader())!.node.id]));
        expect([...ids]).toContain(own[0]!.node.leader!.id);
      }
      // Every key lies under its own group's prefix: the three prefixes share nothing.
      const keys = (await allKeys()).filter((k) => k.startsWith('roster/'));
      for (const key of keys) expect(key).toMatch(/^roster\/(billing\/dev|shipping\/dev|billing\/prod)\/((leader|join|era|id\/[a-z0-9]+) \d+|list\/\d+\/\d+\/[a-z0-9]+\/\d+)$/);
      for (const prefix of ['roster/billing/dev/', 'roster/shipping/dev/', 'roster/billing/prod/']) expect(keys.some((k) => k.startsWith(prefix))).toBe(true);
    } finally {
      for (const { node } of nodes) node.destroy();
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('roster node processes with different --group or --env on one store never see each other', async () => {
    const start = (key: string, env: string, id: string) =>
      startRoster('node', '--store', redis.url, '--group', key, '--env', env, '--id', id, '--interval', String(I * 2), '--timeout', String(T * 2), '--json');
    const a = [start('ns-a', 'test', 'a1'), start('ns-a', 'test', 'a2')];
    const b = start('ns-b', 'test', 'b1');
    const c = start('ns-a', 'other', 'c1');
    const all = [...a, b, c];
    await until(
      () => a.every((p) => p.members.join() === 'a1,a2') && b.members.join() === 'b1' && c.members.join() === 'c1' && all.every((p) => p.leader),
      WAIT,
      () => all.map((p) => p.describe()).join('\n'),
    );
    expect(new Set(a.map((p) => p.leader!.id)).size).toBe(1);
    expect(b.leader!.id).toBe('b1');
    expect(c.leader!.id).toBe('c1');
    const seen = all.flatMap((p) => p.events.flatMap((e) => (e.event === 'members' ? e.members : [])));
    expect(seen.filter((id) => id.startsWith('b')).length).toBe(seen.filter((id) => id === 'b1').length);
    for (const p of a) expect(p.events.some((e) => e.event === 'members' && (e.members.includes('b1') || e.members.includes('c1')))).toBe(false);
    await killAllNodes();
  });

  it('names that could reach outside their prefix are refused with ConfigError naming the field, before anything is written', async () => {
    const kv = await RedisKV.connect({ url: redis.url });
    try {
      const before = (await allKeys()).length;
      const bad = ['', '.', '..', 'a/b', '../x', 'a b', 'a\tb', 'a\nb', 'a*', 'a?', 'a[b]', '{tag}', 'a\u0000b', 'é', 'x'.repeat(129)];
      for (const name of bad) {
        for (const field of ['group', 'env'] as const) {
          const options = { store: kv, group: 'ok', env: 'ok', id: 'n1', intervalMs: I, timeoutMs: T, logger: new MemoryLogger(), [field]: name };
          let error: unknown;
          try {
            createNode(options);
          } catch (e) {
            error = e;
          }
          expect(ConfigError.is(error), `${field} ${JSON.stringify(name)}`).toBe(true);
          expect((error as ConfigError).field).toBe(field);
        }
      }
      expect((await allKeys()).length).toBe(before);
    } finally {
      await kv.close();
    }
  });

  it('roster node refuses such a --group or --env with one line naming the flag, exit 2', async () => {
    for (const [flag, value] of [['--group', 'a/b'], ['--group', '*'], ['--env', '..'], ['--env', 'prod us']] as const) {
      const args = ['node', '--store', redis.url, '--group', 'ok', '--env', 'ok', '--json'];
      args[args.indexOf(flag) + 1] = value;
      const { exit, stderr } = await runRoster(args);
      expect(exit.code).toBe(2);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`invalid ${flag}`);
    }
  });
});

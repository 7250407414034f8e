import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RosterError, StoreUnavailableError } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { MemoryLogger, redisCommand, waitFor, type LocalRedisSentinel } from '@roster/testing';
import { kvContract } from '../packages/kv-adapter/test/contract.js';
import { startRedisSentinel } from './support/redis.js';
import { startTcpProxy } from './support/tcpProxy.js';

/**
 * RedisKV on a real Sentinel deployment (a master, 2 replicas, 3 sentinels, down-after 1 s): the
 * KV contract, then the faults in order on the same deployment (each leaves it whole again).
 */
describe('RedisKV on Redis Sentinel', () => {
  let sentinel: LocalRedisSentinel;

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  });
  afterAll(async () => {
    await sentinel?.stop();
  });

  kvContract('RedisKV (Redis Sentinel)', async () => {
    await redisCommand((await sentinel.master()).port, ['FLUSHALL']);
    return { kv: await RedisKV.connect({ url: sentinel.url }) };
  });

  it('connects to the master the sentinels name', async () => {
    await using kv = await RedisKV.connect({ url: sentinel.url });
    expect(kv.mode).toBe('sentinel');
    await kv.set('where', 'here');
    expect(await redisCommand((await sentinel.master()).port, ['GET', 'where'])).toBe('here');
  });

  it("a failover detector's sentinel link reset and still cut: no unhandled rejection, nothing on the console (roster verify cut-reset, seed 3)", async () => {
    // One sentinel reached through a proxy; the failover detector subscribes to +switch-master on it
    // (and on the two others, which it learns of from it, directly).
    const [first] = sentinel.sentinelPorts as [number];
    const proxy = await startTcpProxy(first);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const consoleError = vi.spyOn(console, 'error');
    const subscribed = async (): Promise<boolean> => String(await redisCommand(first, ['CLIENT', 'LIST', 'TYPE', 'pubsub'])).includes(' sub=1 ');
    try {
      await using kv = await RedisKV.connect({ url: `redis+sentinel://127.0.0.1:${proxy.port}/${sentinel.masterName}`, commandTimeoutMs: 200 });
      await kv.set('x', '1');
      await waitFor(async () => proxy.open === 1 && (await subscribed()), { what: 'the failover detector to subscribe through the proxy', timeoutMs: 5000 });
      // cut-reset: the connection is reset and the link stays cut. ioredis reconnects the detector
      // 1 s later (`sentinelReconnectStrategy`) and re-subscribes into the cut, where a 200 ms command
      // timeout would expire unhandled.
      const accepted = proxy.accepted;
      proxy.setCut(true);
      proxy.dropAll();
      await waitFor(() => proxy.accepted > accepted, { what: 'the failover detector to reconnect into the cut', timeoutMs: 5000 });
      await new Promise((resolve) => setTimeout(resolve, 800));
      proxy.setCut(false);
      // The link back: the held SUBSCRIBE is delivered and the detector listens again.
      await waitFor(subscribed, { what: 'the failover detector to subscribe again', timeoutMs: 5000 });
      await kv.set('x', '2');
    } finally {
      process.off('unhandledRejection', onUnhandled);
      consoleError.mockRestore();
      await proxy.close();
    }
    expect(unhandled).toEqual([]);
    expect(consoleError).not.toHaveBeenCalled();
  });

  it('min-replicas-to-write: a master short of in-sync replicas refuses writes as unavailable (NOREPLICAS), and serves reads', async () => {
    await using kv = await RedisKV.connect({ url: sentinel.url });
    await kv.set('before', '1');
    const master = await sentinel.master();
    const replica = sentinel.nodes.find((n) => n !== master && n.running)!;
    await sentinel.setMinReplicasToWrite(2);
    try {
      await sentinel.kill(replica);
      const error = await kv.set('k', 'v').catch((e: unknown) => e);
      expect(StoreUnavailableError.is(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(/NOREPLICAS/);
      await expect(kv.append('j', ' a')).rejects.toSatisfy((e) => StoreUnavailableError.is(e));
      expect(await kv.get('before')).toBe('1');
      await sentinel.restart(replica);
      await waitFor(async () => (await kv.set('k', 'v').then(() => true)), { what: 'writes to be accepted again', timeoutMs: 10_000 });
    } finally {
      await sentinel.setMinReplicasToWrite(0);
      if (!replica.running) await sentinel.restart(replica);
    }
  });

  it('a SIGKILLed master: operations fail with StoreUnavailableError only, writes resume on the promoted replica, one "master switched" log', async () => {
    const logger = new MemoryLogger();
    await using kv = await RedisKV.connect({ url: sentinel.url, logger });
    const acknowledged: string[] = [];
    const failures = new Map<string, number>();
    let stop = false;
    let lastFailure = 0;
    let firstSuccessAfterKill = 0;
    let killedAt = 0;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const key = `w${w}-${i}`;
        try {
          await kv.set(key, 'x');
          acknowledged.push(key);
          if (killedAt > 0 && lastFailure > killedAt && firstSuccessAfterKill === 0) firstSuccessAfterKill = performance.now();
        } catch (error) {
          lastFailure = performance.now();
          const code = RosterError.is(error) ? error.code : String(error);
          failures.set(code, (failures.get(code) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await new Promise((resolve) => setTimeout(resolve, 200));
    killedAt = performance.now();
    const failover = await sentinel.failover();
    const promotedAt = performance.now();
    await waitFor(() => firstSuccessAfterKill > 0, { what: 'a write to succeed after the failover', timeoutMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    stop = true;
    await Promise.all(writers);

    let lost = 0;
    const master = await sentinel.master();
    for (const key of acknowledged) if ((await redisCommand(master.port, ['EXISTS', key])) === 0) lost++;
    console.info(
      `sentinel failover: promoted ${Math.round(promotedAt - killedAt)} ms after the kill, writes resumed ${Math.round(firstSuccessAfterKill - killedAt)} ms after it; ` +
        `${acknowledged.length} writes acknowledged, ${lost} lost; failures ${JSON.stringify(Object.fromEntries(failures))}`,
    );
    expect([...failures.keys()]).toEqual(['KV_STORE_UNAVAILABLE']);
    expect(logger.entries.filter((e) => e.message === 'redis: master switched')).toHaveLength(1);
    expect(logger.entries.find((e) => e.message === 'redis: master switched')?.fields).toMatchObject({ from: failover.from.address, to: failover.to.address });
    // Asynchronous replication may lose the last acknowledged writes; on loopback it rarely does.
    expect(lost).toBeLessThanOrEqual(acknowledged.length);
    await sentinel.restart(failover.from);
  });

  it('a client that ioredis ends because a failover was announced while it asked a sentinel comes back by itself', async () => {
    const logger = new MemoryLogger();
    const [first, second] = sentinel.sentinelPorts as [number, number];
    // A long command timeout: the paused sentinel holds the connector's question until it resumes.
    await using kv = await RedisKV.connect({ url: sentinel.url, logger, commandTimeoutMs: 10_000 });
    await kv.set('x', '1');
    const from = await sentinel.master();
    // The connector asks the sentinel that answered last (the first) when it reconnects: pause it,
    // drop the connection, and fail over (manually, through the second) while it waits.
    sentinel.pauseSentinel(first);
    try {
      expect(await sentinel.dropClients()).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await redisCommand(second, ['SENTINEL', 'FAILOVER', sentinel.masterName]);
      await waitFor(
        async () => {
          const [, port] = (await redisCommand(second, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', sentinel.masterName])) as [string, string];
          return Number(port) !== from.port;
        },
        { what: 'the manual failover to be announced', timeoutMs: 15_000 },
      );
      // The failover detector has heard +switch-master and dropped the connector's attempt.
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      sentinel.pauseSentinel(first, false);
    }
    await waitFor(() => logger.entries.some((e) => e.message?.startsWith('redis: the client ended')), {
      what: () => `ioredis to end the client (logs: ${logger.entries.map((e) => e.message).join('; ')})`,
      timeoutMs: 5000,
    });
    await waitFor(async () => (await kv.set('x', '2').then(() => true)), { what: 'writes to succeed on the new master', timeoutMs: 10_000 });
    const to = await sentinel.master();
    expect(to).not.toBe(from);
    expect(await redisCommand(to.port, ['GET', 'x'])).toBe('2');
    expect(logger.entries.filter((e) => e.message === 'redis: master switched')).toHaveLength(1);
    await sentinel.settle();
  });

  it('replication cut before the master dies: the writes it acknowledged since are not on the promoted replica', async () => {
    await using kv = await RedisKV.connect({ url: sentinel.url });
    await sentinel.settle();
    await kv.set('kept', '1');
    await sentinel.settle(); // the replicas have it
    const mend = await sentinel.cutReplication();
    try {
      const acknowledged: string[] = [];
      for (let i = 0; i < 50; i++) {
        await kv.set(`after-cut-${i}`, 'x');
        acknowledged.push(`after-cut-${i}`);
      }
      const failover = await sentinel.failover();
      await mend();
      await waitFor(async () => (await kv.set('again', '1').then(() => true)), { what: 'writes on the promoted replica', timeoutMs: 10_000 });
      let lost = 0;
      for (const key of acknowledged) if ((await kv.get(key)) === null) lost++;
      console.info(`sentinel failover after a replication cut: ${lost} of ${acknowledged.length} acknowledged writes lost; the write before the cut kept: ${await kv.get('kept')}`);
      expect(lost).toBe(acknowledged.length);
      expect(await kv.get('kept')).toBe('1');
      await sentinel.restart(failover.from);
    } finally {
      await mend();
    }
  });
});

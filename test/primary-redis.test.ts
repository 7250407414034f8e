import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as delay } from 'node:timers/promises';
import { Namespace } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { MemoryLogger } from '@roster/testing';
import { HeartbeatTable, PrimaryContender, PrimaryResolver } from '@roster/primary';
import { startRedis } from './support/redis.js';
import { waitFor } from '@roster/testing';

/** Per-type primaries through a heartbeat table, on a real redis-server (compare-and-set and `TIME` in one Lua script), real clock, generous bounds. */
const I = 100;
const T = 600;
const TYPES = ['billing', 'search'] as const;

let redis: Awaited<ReturnType<typeof startRedis>>;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

function until(predicate: () => boolean, limitMs: number, what: string): Promise<number> {
  return waitFor(predicate, { what, timeoutMs: limitMs, everyMs: 5 });
}

describe('@roster/primary on a real redis-server', () => {
  it('two contenders for each of two types: one primary per type; after the primary stops, the other takes over', async () => {
    const namespace = new Namespace('primary-spec', `e${Math.random().toString(36).slice(2, 8)}`);
    const stores: RedisKV[] = [];
    const contenders: PrimaryContender[] = [];
    const violations: string[] = [];
    try {
      for (const utype of TYPES) {
        for (let i = 0; i < 2; i++) {
          const kv = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 1000 });
          stores.push(kv);
          const contender = new PrimaryContender({ store: kv, namespace, utype, endpoint: `${utype}-${i}:80`, intervalMs: I, timeoutMs: T, logger: new MemoryLogger() });
          contender.on('startedActing', () => {
            const now = contenders.filter((c) => c.utype === utype && c.isActing);
            if (now.length > 1) violations.push(`${utype}: ${now.length} primaries`);
          });
          contenders.push(contender);
        }
      }
      contenders.forEach((c) => c.start());
      const primaries = () => TYPES.map((utype) => contenders.filter((c) => c.utype === utype && c.isActing));

      const elected = await until(() => primaries().every((p) => p.length === 1), 5000, 'one primary per type');
      await delay(3 * I); // and it stays that way
      expect(primaries().map((p) => p.length)).toEqual([1, 1]);

      // The table and the resolver agree with the contenders.
      const resolver = new PrimaryResolver({ store: stores[0]!, namespace, intervalMs: I, timeoutMs: T });
      for (const [index, utype] of TYPES.entries()) {
        const primary = primaries()[index]![0]!;
        expect(await resolver.resolve(utype)).toBe(primary.endpoint);
        expect((await resolver.getPrimary(utype))?.id).toBe(primary.id);
      }

      // Crash the primary of the first type (no release): the other takes over after T, not before.
      const table = new HeartbeatTable({ store: stores[0]!, namespace, timeoutMs: T });
      const [crashed] = primaries()[0]!;
      const successor = contenders.find((c) => c.utype === TYPES[0] && c !== crashed)!;
      await crashed!.stop({ release: false });
      const stoppedAt = performance.now();
      const crashTakeover = await until(() => successor.isActing, 10 * T, 'takeover after a crash');
      const state = await table.inspect(TYPES[0]);
      expect(state.state === 'live' && state.entry.id).toBe(successor.id);
      // Its last heartbeat was at most I + a round before the stop; the successor waits for T after it.
      expect(performance.now() - stoppedAt).toBeGreaterThan(T - 2 * I);

      // Stop the primary of the second type gracefully: it releases, the other takes over within a few I.
      const [leaving] = primaries()[1]!;
      const heir = contenders.find((c) => c.utype === TYPES[1] && c !== leaving)!;
      await leaving!.stop();
      const releaseTakeover = await until(() => heir.isActing, 10 * T, 'takeover after a graceful stop');
      expect(releaseTakeover).toBeLessThan(T);

      expect(violations).toEqual([]);
      console.log(`[primary-redis] elected both types in ${elected.toFixed(0)} ms; takeover after a crash ${crashTakeover.toFixed(0)} ms (T=${T}), after a release ${releaseTakeover.toFixed(0)} ms`);
    } finally {
      await Promise.all(contenders.map((c) => c.stop({ release: false })));
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('the table on Redis: racing heartbeats, exactly one swaps; a corrupt entry is taken over through its exact bytes', async () => {
    const namespace = new Namespace('primary-spec', `e${Math.random().toString(36).slice(2, 8)}`);
    const a = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 1000 });
    const b = await RedisKV.connect({ url: redis.url, commandTimeoutMs: 1000 });
    try {
      const reports: string[] = [];
      const tableA = new HeartbeatTable({ store: a, namespace, timeoutMs: T, onCorruptEntry: (r) => reports.push(r.reason) });
      const tableB = new HeartbeatTable({ store: b, namespace, timeoutMs: T });
      for (let round = 0; round < 20; round++) {
        const utype = `race-${round}`;
        const outcomes = await Promise.all([tableA.updateHeartbeat('a', utype), tableB.updateHeartbeat('b', utype)]);
        expect(outcomes.filter((o) => o.written)).toHaveLength(1);
        const winner = outcomes.find((o) => o.written)!;
        const primary = await tableA.getPrimary(utype);
        expect(primary?.id).toBe(winner.written ? winner.entry.id : undefined);
        expect(Number.isInteger(primary?.timestamp)).toBe(true); // Redis TIME, in whole ms
      }

      await a.set(tableA.key('corrupt'), '{"id":"x","utype":"corrupt","timestamp":"later"}');
      expect(await tableA.getPrimary('corrupt')).toBeUndefined();
      expect(reports).toEqual(['timestamp is not a finite number ≥ 0']);
      expect(await tableB.updateHeartbeat('b', 'corrupt')).toMatchObject({ written: true, previous: 'corrupt' });
      expect((await tableA.getPrimary('corrupt'))?.id).toBe('b');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

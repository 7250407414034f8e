import { describe, expect, it } from 'vitest';
import { ConfigError, MemoryKV, Namespace, RosterError, ValueTooLargeError, type CompareAndSetOptions, type CompareAndSetResult } from '@roster/kv-adapter';
import { MemoryLogger, VirtualClock } from '@roster/testing';
import { overrideKV } from './support/overrideKV.js';
import { encodeEntry } from '../src/entryCodec.js';
import { HeartbeatTable, type CorruptEntryReport } from '../src/index.js';

const T = 5000;
const namespace = new Namespace('shop', 'test');

function setup(options: { maxValueBytes?: number } = {}) {
  const clock = new VirtualClock();
  const kv = new MemoryKV({ clock, ...options });
  const logger = new MemoryLogger();
  const reports: CorruptEntryReport[] = [];
  const table = new HeartbeatTable({ store: kv, namespace, timeoutMs: T, logger, onCorruptEntry: (r) => reports.push(r) });
  return { clock, kv, logger, reports, table };
}

describe('HeartbeatTable', () => {
  it('keys each role type under the namespace', () => {
    const { table } = setup();
    expect(table.key('billing')).toBe('roster/shop/test/primary/billing');
  });

  it('writes a heartbeat stamped with the store time into an empty entry, and getPrimary returns it', async () => {
    const { clock, table, kv } = setup();
    const outcome = await table.updateHeartbeat('a', 'billing', { endpoint: '10.0.0.1:80' });
    expect(outcome).toMatchObject({ written: true, previous: 'empty', entry: { id: 'a', timestamp: clock.wallTime() } });
    expect(await kv.get(table.key('billing'))).toBe(`{"id":"a","utype":"billing","timestamp":${clock.wallTime()},"endpoint":"10.0.0.1:80"}`);
    expect(await table.getPrimary('billing')).toEqual({ id: 'a', utype: 'billing', timestamp: clock.wallTime(), endpoint: '10.0.0.1:80' });
  });

  it('getPrimary returns the entry while store time − timestamp ≤ T, and nothing after', async () => {
    const { clock, table } = setup();
    await table.updateHeartbeat('a', 'billing');
    await clock.advance(T);
    expect((await table.getPrimary('billing'))?.id).toBe('a');
    await clock.advance(1);
    expect(await table.getPrimary('billing')).toBeUndefined();
    expect(await table.inspect('billing')).toMatchObject({ state: 'expired', ageMs: T + 1 });
  });

  it('another instance takes a held entry over only once store time − timestamp > T', async () => {
    const { clock, table } = setup();
    await table.updateHeartbeat('a', 'billing');
    await clock.advance(T);
    expect(await table.updateHeartbeat('b', 'billing')).toMatchObject({ written: false, reason: 'held', holder: { id: 'a' } });
    await clock.advance(1);
    expect(await table.updateHeartbeat('b', 'billing')).toMatchObject({ written: true, previous: 'expired' });
    expect((await table.getPrimary('billing'))?.id).toBe('b');
  });

  it('the holder renews its own entry at any age', async () => {
    const { clock, table } = setup();
    await table.updateHeartbeat('a', 'billing');
    await clock.advance(3 * T);
    expect(await table.updateHeartbeat('a', 'billing')).toMatchObject({ written: true, previous: 'own', entry: { timestamp: clock.wallTime() } });
  });

  it('renewOnly never writes an entry that is not already the instance’s own', async () => {
    const { clock, table } = setup();
    expect(await table.updateHeartbeat('a', 'billing', { renewOnly: true })).toMatchObject({ written: false, reason: 'not-owner' });
    await table.updateHeartbeat('b', 'billing');
    await clock.advance(T + 1);
    expect(await table.updateHeartbeat('a', 'billing', { renewOnly: true })).toMatchObject({ written: false, reason: 'not-owner' });
    expect((await table.inspect('billing')) as { entry: { id: string } }).toMatchObject({ entry: { id: 'b' } });
  });

  it('of two heartbeats racing on the same entry exactly one swaps; the other is discarded, not retried', async () => {
    const { clock, kv, table } = setup();
    await table.updateHeartbeat('a', 'billing');
    await clock.advance(T + 1);
    const casCalls: string[] = [];
    const spy = overrideKV(kv, {
      compareAndSet: (key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> => {
        casCalls.push(value);
        return kv.compareAndSet(key, expected, value, options);
      },
    });
    const racing = new HeartbeatTable({ store: spy, namespace, timeoutMs: T });
    // Both read the same expired entry of `a`, then both compare-and-set against it.
    const outcomes = await Promise.all([racing.updateHeartbeat('b', 'billing'), racing.updateHeartbeat('c', 'billing')]);
    expect(outcomes.filter((o) => o.written)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.written)).toEqual([expect.objectContaining({ written: false, reason: 'conflict' })]);
    expect(casCalls).toHaveLength(2);
    const winner = outcomes.find((o) => o.written)!;
    expect((await table.getPrimary('billing'))?.id).toBe(winner.written ? winner.entry.id : '');
  });

  it('a primary’s renewal racing a takeover: exactly one of them swaps', async () => {
    const { clock, table } = setup();
    await table.updateHeartbeat('a', 'billing');
    await clock.advance(T + 1);
    const [renew, takeover] = await Promise.all([table.updateHeartbeat('a', 'billing', { renewOnly: true }), table.updateHeartbeat('b', 'billing')]);
    expect([renew.written, takeover.written].filter(Boolean)).toHaveLength(1);
  });

  describe('corrupt entries are treated as empty and reported, and taken over through compare-and-set on their exact bytes', () => {
    const garbage: Record<string, string> = {
      'garbage JSON': '{"id": "a", "utype": "billing", "timest',
      'not an object': '[1,2,3]',
      'a JSON string': '"hello"',
      'id of the wrong type': '{"id":42,"utype":"billing","timestamp":1}',
      'id with whitespace': '{"id":"a b","utype":"billing","timestamp":1}',
      'timestamp as a string': '{"id":"a","utype":"billing","timestamp":"1700000000000"}',
      'negative timestamp': '{"id":"a","utype":"billing","timestamp":-5}',
      'missing timestamp': '{"id":"a","utype":"billing"}',
      'another type’s entry': '{"id":"a","utype":"search","timestamp":1}',
      'endpoint of the wrong type': '{"id":"a","utype":"billing","timestamp":1,"endpoint":{}}',
      'a huge value': `{"id":"a","utype":"billing","timestamp":1,"pad":"${'x'.repeat(100_000)}"}`,
      'binary junk': '\u0000\u0001\u00ff\ud7ff',
    };
    for (const [name, raw] of Object.entries(garbage)) {
      it(name, async () => {
        const { clock, kv, logger, reports, table } = setup();
        const key = table.key('billing');
        // A live-looking timestamp, so only the corruption can make it count as empty.
        await kv.set(key, raw.replace('"timestamp":1', `"timestamp":${clock.wallTime()}`));
        const stored = (await kv.get(key))!;

        expect(await table.getPrimary('billing')).toBeUndefined();
        expect(await table.inspect('billing')).toMatchObject({ state: 'corrupt' });
        expect(reports).toHaveLength(2);
        expect(reports[0]).toMatchObject({ utype: 'billing', key, length: stored.length });
        expect(table.corruptReads).toBe(2);
        expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1); // the same garbage is logged once

        const outcome = await table.updateHeartbeat('b', 'billing');
        expect(outcome).toMatchObject({ written: true, previous: 'corrupt' });
        expect((await table.getPrimary('billing'))?.id).toBe('b');
      });
    }

    it('a takeover of a corrupt entry that changed meanwhile is discarded', async () => {
      const { kv, table } = setup();
      const key = table.key('billing');
      await kv.set(key, 'junk-1');
      const realCas = kv.compareAndSet.bind(kv);
      kv.compareAndSet = async (k, expected, value, options) => {
        expect(expected).toBe('junk-1'); // the exact corrupt bytes read
        await kv.set(k, 'junk-2'); // someone rewrites it between our read and our write
        return realCas(k, expected, value, options);
      };
      expect(await table.updateHeartbeat('b', 'billing')).toMatchObject({ written: false, reason: 'conflict' });
      expect(await kv.get(key)).toBe('junk-2');
    });

    it('an entry the store refuses to return (over its read limit) is reported and never crashes', async () => {
      const { table } = setup();
      const refusing = overrideKV(table.store, {
        get: async () => {
          throw new ValueTooLargeError('k', 5_000_000, 1_048_576);
        },
      });
      const reports: CorruptEntryReport[] = [];
      const t = new HeartbeatTable({ store: refusing, namespace, onCorruptEntry: (r) => reports.push(r) });
      expect(await t.getPrimary('billing')).toBeUndefined();
      expect(await t.updateHeartbeat('b', 'billing')).toMatchObject({ written: false, reason: 'unreadable' });
      expect(reports).toHaveLength(2);
      expect(reports[0]).toMatchObject({ length: -1 });
    });
  });

  it('release gives the entry up (expired at once) only on behalf of its holder', async () => {
    const { table } = setup();
    await table.updateHeartbeat('a', 'billing');
    expect(await table.release('b', 'billing')).toBe(false);
    expect((await table.getPrimary('billing'))?.id).toBe('a');
    expect(await table.release('a', 'billing')).toBe(true);
    expect(await table.getPrimary('billing')).toBeUndefined();
    expect(await table.updateHeartbeat('b', 'billing')).toMatchObject({ written: true, previous: 'expired' });
  });

  it('entries of different role types are independent', async () => {
    const { table } = setup();
    await table.updateHeartbeat('a', 'billing');
    await table.updateHeartbeat('b', 'search');
    expect((await table.getPrimary('billing'))?.id).toBe('a');
    expect((await table.getPrimary('search'))?.id).toBe('b');
  });

  it('refuses a store without compareAndSet or time, with a typed error', () => {
    const kv = new MemoryKV();
    for (const capabilities of [{ compareAndSet: false, time: true }, { compareAndSet: true, time: false }]) {
      const limited = overrideKV(kv, { capabilities, name: 'Limited' });
      const attempt = () => new HeartbeatTable({ store: limited, namespace });
      expect(attempt).toThrow(/Limited does not support/);
      try {
        attempt();
      } catch (error) {
        expect(RosterError.is(error, 'KV_UNSUPPORTED')).toBe(true);
      }
    }
  });

  it('rejects invalid role types, ids and endpoints with ConfigError naming the field', async () => {
    const { table } = setup();
    for (const [call, field] of [
      [() => table.getPrimary(''), 'utype'],
      [() => table.getPrimary('has space'), 'utype'],
      [() => table.getPrimary('x'.repeat(129)), 'utype'],
      [() => table.updateHeartbeat('', 'billing'), 'id'],
      [() => table.updateHeartbeat('a\tb', 'billing'), 'id'],
      [() => table.updateHeartbeat('a', 'billing', { endpoint: '' }), 'endpoint'],
    ] as const) {
      await expect((async () => call())()).rejects.toSatisfy((e: unknown) => ConfigError.is(e) && e.field === field);
    }
  });

  it('encodes the released entry with timestamp 0', () => {
    expect(encodeEntry({ id: 'a', utype: 't', timestamp: 0 })).toBe('{"id":"a","utype":"t","timestamp":0}');
  });
});

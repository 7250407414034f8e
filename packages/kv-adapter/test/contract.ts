import { describe, expect, it } from 'vitest';
import { RosterError, type KV } from '../src/index.js';

/** The optional capabilities a backend under the contract declares (see `KVCapabilities`). */
export interface ContractCapabilities {
  /** `capabilities.time`: the store has a clock. @defaultValue true */
  readonly time?: boolean;
  /** `capabilities.comparePrefix`: compare-and-set takes `prefix`. @defaultValue true */
  readonly comparePrefix?: boolean;
}

/**
 * The behaviour every KV backend shares; run against each backend with a fresh store per test.
 * A backend without a clock must refuse `time` and stamps with a typed error; one without prefix
 * compares is never given the option.
 */
export function kvContract(
  name: string,
  open: () => Promise<{ kv: KV; done?: () => Promise<void> }>,
  capabilities: ContractCapabilities = {},
): void {
  const { time = true, comparePrefix = true } = capabilities;
  describe(`KV contract: ${name}`, () => {
    async function withKV(fn: (kv: KV) => Promise<void>): Promise<void> {
      const { kv, done } = await open();
      try {
        await fn(kv);
      } finally {
        await kv.close();
        await done?.();
      }
    }

    it('get returns null for a missing key and the value after set', () =>
      withKV(async (kv) => {
        expect(await kv.get('k')).toBeNull();
        await kv.set('k', 'v1');
        expect(await kv.get('k')).toBe('v1');
        await kv.set('k', 'v2');
        expect(await kv.get('k')).toBe('v2');
      }));

    it('delete removes a key and says whether it existed', () =>
      withKV(async (kv) => {
        await kv.set('k', 'v');
        expect(await kv.delete('k')).toBe(true);
        expect(await kv.delete('k')).toBe(false);
        expect(await kv.get('k')).toBeNull();
      }));

    it('append creates the key, concatenates, and returns the new byte length', () =>
      withKV(async (kv) => {
        expect(await kv.append('j', ' a')).toBe(2);
        expect(await kv.append('j', ' bé')).toBe(6);
        expect(await kv.get('j')).toBe(' a bé');
      }));

    it('concurrent appends are never lost', () =>
      withKV(async (kv) => {
        const ids = Array.from({ length: 50 }, (_, i) => `n${i}`);
        await Promise.all(ids.map((id) => kv.append('j', ` ${id}`)));
        const got = (await kv.get('j'))!.trim().split(' ').sort();
        expect(got).toEqual([...ids].sort());
      }));

    it('take reads and deletes atomically; appends racing with it are kept', () =>
      withKV(async (kv) => {
        await kv.append('j', ' a');
        const [taken] = await Promise.all([kv.take('j'), kv.append('j', ' b')]);
        const rest = await kv.take('j');
        const all = `${taken ?? ''}${rest ?? ''}`.trim().split(' ').sort();
        expect(all).toEqual(['a', 'b']);
        expect(await kv.take('j')).toBeNull();
      }));

    it('getRange reads inclusive byte ranges, negative offsets from the end, clipped at the end', () =>
      withKV(async (kv) => {
        await kv.set('b', '12 0 345 node1 node2');
        expect(await kv.getRange('b', 0, 4)).toBe('12 0 ');
        expect(await kv.getRange('b', 0, 999)).toBe('12 0 345 node1 node2');
        expect(await kv.getRange('b', -5, -1)).toBe('node2');
        expect(await kv.getRange('b', 30, 40)).toBe('');
        expect(await kv.getRange('b', 5, 2)).toBe('');
        expect(await kv.getRange('absent', 0, 100)).toBe('');
        await kv.set('u', 'é1');
        expect(await kv.getRange('u', 0, 1)).toBe('é');
        expect(await kv.getRange('u', 2, 2)).toBe('1');
      }));

    it('getRange rejects offsets that are not integers with a typed error', () =>
      withKV(async (kv) => {
        await expect(kv.getRange('b', 0.5, 3)).rejects.toSatisfy((e) => RosterError.is(e, 'CONFIG_INVALID'));
        await expect(kv.getRange('b', 0, Number.NaN)).rejects.toSatisfy((e) => RosterError.is(e, 'CONFIG_INVALID'));
      }));

    it('exchange writes the value and returns the one it replaced (null when absent)', () =>
      withKV(async (kv) => {
        expect(await kv.exchange('x', 'PING 1')).toBeNull();
        expect(await kv.exchange('x', 'PONG 1')).toBe('PING 1');
        expect(await kv.get('x')).toBe('PONG 1');
      }));

    it('concurrent exchanges on one key each return a distinct previous value: none is lost', () =>
      withKV(async (kv) => {
        await kv.set('x', 'v0');
        const values = Array.from({ length: 40 }, (_, i) => `v${i + 1}`);
        const previous = await Promise.all(values.map((v) => kv.exchange('x', v)));
        const last = (await kv.get('x'))!;
        // Every value written is either replaced by exactly one later exchange or is the last one.
        expect([...previous, last].sort()).toEqual(['v0', ...values].sort());
      }));

    it('exchange refuses a value over the limit and keeps the old one', () =>
      withKV(async (kv) => {
        await kv.set('x', 'keep');
        await expect(kv.exchange('x', 'x'.repeat(2 * 1024 * 1024))).rejects.toSatisfy((e) => RosterError.is(e, 'KV_VALUE_TOO_LARGE'));
        await expect(kv.exchange('x', 7 as unknown as string)).rejects.toSatisfy((e) => RosterError.is(e, 'KV_INVALID_VALUE'));
        expect(await kv.get('x')).toBe('keep');
      }));

    it('compareAndSet swaps only when the current value matches', () =>
      withKV(async (kv) => {
        expect(kv.capabilities.compareAndSet).toBe(true);
        expect((await kv.compareAndSet('c', null, 'one')).swapped).toBe(true);
        const miss = await kv.compareAndSet('c', null, 'two');
        expect(miss.swapped).toBe(false);
        expect(miss.current).toBe('one');
        const hit = await kv.compareAndSet('c', 'one', 'two');
        expect(hit).toMatchObject({ swapped: true, current: 'two' });
        expect(await kv.get('c')).toBe('two');
      }));

    it('compareAndSet with prefix swaps when the current value begins with the expected one', () =>
      withKV(async (kv) => {
        expect(kv.capabilities.comparePrefix === true).toBe(comparePrefix);
        // A backend without prefix compares is never given the option (see `KVCapabilities`).
        if (!comparePrefix) return;
        const long = `3 0 41 alpha ${'member '.repeat(2000)}end`;
        await kv.set('p', long);
        const miss = await kv.compareAndSet('p', '3 0 40 alpha ', 'claim', { prefix: true });
        expect(miss).toMatchObject({ swapped: false, current: long });
        // A prefix of a prefix is no match for a whole-value compare.
        expect((await kv.compareAndSet('p', '3 0 41 alpha ', 'claim')).swapped).toBe(false);
        expect(await kv.compareAndSet('p', '3 0 41 alpha ', 'claim', { prefix: true })).toMatchObject({ swapped: true, current: 'claim' });
        expect(await kv.get('p')).toBe('claim');
        // An absent key begins with nothing; `null` still means "absent".
        expect((await kv.compareAndSet('q', '', 'x', { prefix: true })).swapped).toBe(false);
        expect((await kv.compareAndSet('q', null, 'x', { prefix: true })).swapped).toBe(true);
        // A value longer than the stored one is no prefix of it; a multi-byte prefix compares by bytes.
        expect((await kv.compareAndSet('q', 'xy', 'z', { prefix: true })).swapped).toBe(false);
        await kv.set('u', 'élan vital');
        expect((await kv.compareAndSet('u', 'él', 'ok', { prefix: true })).swapped).toBe(true);
      }));

    it('a backend without a clock refuses time and stamps with a typed error', () =>
      withKV(async (kv) => {
        expect(kv.capabilities.time).toBe(time);
        if (time) return;
        await expect(kv.time()).rejects.toSatisfy((e) => RosterError.is(e, 'KV_UNSUPPORTED'));
        await expect(kv.compareAndSet('h', null, '@NOW@', { stampToken: '@NOW@' })).rejects.toSatisfy((e) => RosterError.is(e, 'KV_UNSUPPORTED'));
        expect(await kv.get('h')).toBeNull();
      }));

    it('compareAndSet stamps the store time into the value in the same step', () =>
      withKV(async (kv) => {
        if (!time) return;
        const before = await kv.time();
        const res = await kv.compareAndSet('h', null, '{"ts":@NOW@,"again":@NOW@}', { stampToken: '@NOW@' });
        expect(res.swapped).toBe(true);
        const parsed = JSON.parse((await kv.get('h'))!) as { ts: number; again: number };
        expect(parsed.ts).toBe(parsed.again);
        expect(parsed.ts).toBeGreaterThanOrEqual(before);
        expect(res.time).toBe(parsed.ts);
      }));

    it('time reads the store clock in whole ms since the epoch, as compareAndSet stamps it', () =>
      withKV(async (kv) => {
        if (!time) return;
        const t = await kv.time();
        expect(t).toBeGreaterThan(1_600_000_000_000);
        // A fraction of a ms would put time() above a stamp taken later in the same ms.
        expect(Number.isInteger(t), String(t)).toBe(true);
      }));

    it('set with ttlMs expires the key', () =>
      withKV(async (kv) => {
        await kv.set('t', 'v', { ttlMs: 60_000 });
        expect(await kv.get('t')).toBe('v');
      }));

    it('keys with spaces and unicode are distinct keys', () =>
      withKV(async (kv) => {
        await kv.set('leader 0', 'a');
        await kv.set('leader 1', 'b');
        await kv.set('clé 0', 'c');
        expect([await kv.get('leader 0'), await kv.get('leader 1'), await kv.get('clé 0')]).toEqual(['a', 'b', 'c']);
      }));

    it('rejects bad keys and values with typed errors and keeps the data', () =>
      withKV(async (kv) => {
        await kv.set('k', 'keep');
        await expect(kv.set('', 'v')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_INVALID_KEY'));
        await expect(kv.get('x'.repeat(5000))).rejects.toSatisfy((e) => RosterError.is(e, 'KV_INVALID_KEY'));
        await expect(kv.set('k', '\ud800')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_INVALID_VALUE'));
        await expect(kv.set('k', 'x'.repeat(2 * 1024 * 1024))).rejects.toSatisfy((e) =>
          RosterError.is(e, 'KV_VALUE_TOO_LARGE'),
        );
        await expect(kv.set('k', 42 as unknown as string)).rejects.toSatisfy((e) => RosterError.is(e, 'KV_INVALID_VALUE'));
        expect(await kv.get('k')).toBe('keep');
      }));

    it('an append that would grow a value past the limit is refused whole', () =>
      withKV(async (kv) => {
        await kv.set('j', 'x'.repeat(1024 * 1024 - 4));
        await expect(kv.append('j', '123456')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_VALUE_TOO_LARGE'));
        expect((await kv.get('j'))!.length).toBe(1024 * 1024 - 4);
      }));

    it('operations after close reject with KV_CLOSED', () =>
      withKV(async (kv) => {
        await kv.close();
        await expect(kv.getRange('k', 0, 3)).rejects.toSatisfy((e) => RosterError.is(e, 'KV_CLOSED'));
        await expect(kv.exchange('k', 'v')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_CLOSED'));
        await expect(kv.get('k')).rejects.toSatisfy((e) => RosterError.is(e, 'KV_CLOSED'));
        await kv.close();
      }));
  });
}

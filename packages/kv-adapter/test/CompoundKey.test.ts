import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompoundKey,
  ConfigError,
  isKeyFailure,
  KeyUnavailableError,
  MemoryKV,
  Namespace,
  readWindow,
  StoreUnavailableError,
  writeMoving,
  type KV,
} from '../src/index.js';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { withDeadline } from '../src/util/deadline.js';

/** A MemoryKV on which chosen keys are unavailable (a tiny stand-in for a dead shard). */
function withDeadKeys(dead: Set<string>): KV {
  const kv = new MemoryKV();
  return new Proxy(kv, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (key: string, ...rest: unknown[]) => {
        if (dead.has(key)) return Promise.reject(new KeyUnavailableError(key));
        return (v as (...a: unknown[]) => unknown).call(target, key, ...rest);
      };
    },
  });
}

describe('CompoundKey', () => {
  it('starts at nonce 0 and names keys "<base> <nonce>"', () => {
    const k = new CompoundKey('roster/a/b/leader');
    expect(k.nonce).toBe(0);
    expect(k.current).toBe('roster/a/b/leader 0');
    expect(k.keys()).toEqual([0, 1, 2, 3].map((n) => `roster/a/b/leader ${n}`));
  });

  it('advances to the next nonce and wraps within its window', () => {
    const k = new CompoundKey('x', { window: 3 });
    expect([k.advance(), k.advance(), k.advance()]).toEqual([1, 2, 0]);
  });

  it('parse is the inverse of at', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.nat({ max: 1000 }), (base, nonce) => {
        fc.pre(!base.endsWith(' ') && base.trim() === base);
        const k = new CompoundKey(base, { window: 1024 });
        expect(CompoundKey.parse(k.at(nonce))).toEqual({ base, nonce });
      }),
    );
  });

  it('rejects a bad window or nonce with a ConfigError naming the field', () => {
    expect(() => new CompoundKey('x', { window: 0 })).toThrow(ConfigError);
    try {
      new CompoundKey('x', { nonce: 9 });
    } catch (e) {
      expect(ConfigError.is(e) && e.field).toBe('nonce');
    }
  });

  it('a writer whose key is unavailable moves to the next nonce, and a reader scanning the window finds it there', async () => {
    const dead = new Set<string>(['leader 0']);
    const kv = withDeadKeys(dead);
    const writer = new CompoundKey('leader');
    const { nonce } = await writeMoving(writer, (key) => kv.set(key, 'hello'));
    expect(nonce).toBe(1);
    expect(writer.current).toBe('leader 1');

    const slots = await readWindow(kv, new CompoundKey('leader'));
    expect(slots[0]).toMatchObject({ nonce: 0, ok: false });
    expect(KeyUnavailableError.is((slots[0] as { error: unknown }).error)).toBe(true);
    expect(slots[1]).toEqual({ nonce: 1, ok: true, value: 'hello' });
  });

  it('with a deadline, a nonce whose shard hangs fails alone when its time is up; the others are read', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    await store.set('leader 1', 'hello');
    const faults = new FaultInjector({ clock, seed: 1 });
    faults.keyUnavailable('leader 0', { hang: true, forMs: 60_000 });
    const read = readWindow(faults.view(store), new CompoundKey('leader'), { deadline: { clock, ms: 50 } });
    await clock.advance(50);
    const slots = await read;
    expect(slots[0]).toMatchObject({ nonce: 0, ok: false });
    expect(StoreUnavailableError.is((slots[0] as { error: unknown }).error)).toBe(true);
    expect(slots.slice(1)).toEqual([
      { nonce: 1, ok: true, value: 'hello' },
      { nonce: 2, ok: true, value: null },
      { nonce: 3, ok: true, value: null },
    ]);
  });

  it('writeMoving takes a deadline that passed on one nonce for that key, and two in a row for the store', async () => {
    const timeout = new StoreUnavailableError('set took longer than 50 ms', { timedOut: true });
    const oneHung = new CompoundKey('id/n1');
    const tried: string[] = [];
    const { nonce } = await writeMoving(oneHung, async (k) => {
      tried.push(k);
      if (k === 'id/n1 0') throw timeout;
    });
    expect(nonce).toBe(1);
    expect(tried).toEqual(['id/n1 0', 'id/n1 1']);

    const allHung = new CompoundKey('id/n1');
    await expect(writeMoving(allHung, async () => Promise.reject(timeout))).rejects.toBe(timeout);
    expect(allHung.nonce).toBe(1); // tried 0 and 1, then gave up

    const refused = new StoreUnavailableError('connection refused');
    const outage = new CompoundKey('id/n1');
    await expect(writeMoving(outage, async () => Promise.reject(refused))).rejects.toBe(refused);
    expect(outage.nonce).toBe(0);
  });

  it('keeps its writer at its nonce on a timeout while timeouts do not move (a store slow as a whole), not on a key that says it is unavailable', async () => {
    const timeout = new StoreUnavailableError('set took longer than 50 ms', { timedOut: true });
    const dead = new KeyUnavailableError('id/n1 0');
    let slow = true;
    const key = new CompoundKey('id/n1', { timeoutsMove: () => !slow });
    expect(key.holdsOn(timeout)).toBe(true);
    expect(key.failedOn(timeout)).toBe(false);
    expect(key.holdsOn(dead)).toBe(false);
    expect(key.failedOn(dead)).toBe(true);
    await expect(writeMoving(key, async () => Promise.reject(timeout))).rejects.toBe(timeout);
    expect(key.nonce).toBe(0);
    const { nonce } = await writeMoving(key, async (k) => {
      if (k === 'id/n1 0') throw dead;
    });
    expect(nonce).toBe(1);
    // The store answers in time again: a timeout is one key's once more.
    slow = false;
    expect(key.holdsOn(timeout)).toBe(false);
    expect(key.failedOn(timeout)).toBe(true);
    const moved = await writeMoving(key, async (k) => {
      if (k === 'id/n1 1') throw timeout;
    });
    expect(moved.nonce).toBe(2);
  });

  it('keeps its writer at its nonce on a deadline that passed while the operation waited for a connection of a busy pool, and moves it on one that passed on a hung key', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const faults = new FaultInjector({ clock, seed: 1 });
    // One connection, held 100 ms by each operation: a second one waits for it.
    const pool = faults.connections({ size: 1, serviceMs: 100 });
    const kv = faults.view(store);
    const ping = (key: CompoundKey): Promise<unknown> =>
      writeMoving(key, (k) => withDeadline(clock, 50, 'PING', (signal) => kv.exchange(k, 'PING 1', { signal }))).catch((error: unknown) => error);
    const busy = kv.set('other', 'x');
    const queued = new CompoundKey('id/n1');
    const waited = ping(queued);
    await clock.advance(50);
    const error = await waited;
    expect(StoreUnavailableError.is(error) && error.timedOut && error.queued).toBe(true);
    expect(isKeyFailure(error)).toBe(false);
    expect(queued.holdsOn(error)).toBe(true);
    expect(queued.nonce).toBe(0);
    await clock.advance(200);
    await busy;
    // Never sent: the store has nothing at either nonce.
    expect(await store.get('id/n1 0')).toBeNull();
    expect(await store.get('id/n1 1')).toBeNull();
    pool.heal();

    // Sent, and no answer in time: a hung shard, which the writer moves off.
    faults.keyUnavailable('id/n1 0', { hang: true, forMs: 1_000 });
    const hung = new CompoundKey('id/n1');
    const moved = ping(hung);
    await clock.advance(50);
    expect(await moved).toEqual({ result: null, nonce: 1 });
    expect(hung.nonce).toBe(1);
    expect(await store.get('id/n1 1')).toBe('PING 1');
  });

  it('writeMoving gives up with KeyUnavailableError after trying every nonce once', async () => {
    const kv = withDeadKeys(new Set(['j 0', 'j 1']));
    await expect(writeMoving(new CompoundKey('j', { window: 2 }), (k) => kv.set(k, 'v'))).rejects.toBeInstanceOf(
      KeyUnavailableError,
    );
  });
});

describe('Namespace', () => {
  it('prefixes keys with the group and environment', () => {
    expect(new Namespace('app', 'dev').key('leader')).toBe('roster/app/dev/leader');
  });

  it('keeps two environments of one group apart', async () => {
    const kv = new MemoryKV();
    await kv.set(new Namespace('app', 'production').key('leader 0'), 'p');
    expect(await kv.get(new Namespace('app', 'dev').key('leader 0'))).toBeNull();
  });

  it('refuses names with spaces, slashes or braces', () => {
    for (const bad of ['a b', 'a/b', '{a}', '', 'x'.repeat(200)]) {
      expect(() => new Namespace(bad, 'dev')).toThrow(ConfigError);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryKV, Namespace } from '@roster/kv-adapter';
import { VirtualClock } from '@roster/testing';
import { HeartbeatTable, PrimaryResolver, type PrimaryChange } from '../src/index.js';
import { DelayedKV, prng } from './support/DelayedKV.js';

const I = 1000;
const T = 5000;
const namespace = new Namespace('shop', 'test');

function setup() {
  const clock = new VirtualClock();
  const kv = new MemoryKV({ clock });
  const table = new HeartbeatTable({ store: kv, namespace, timeoutMs: T });
  const resolver = new PrimaryResolver({ store: kv, namespace, clock, intervalMs: I, timeoutMs: T });
  return { clock, kv, table, resolver };
}

describe('PrimaryResolver', () => {
  it('resolves a role type to the endpoint of its live primary, or nothing', async () => {
    const { clock, table, resolver } = setup();
    expect(await resolver.resolve('billing')).toBeUndefined();
    await table.updateHeartbeat('a', 'billing', { endpoint: 'http://10.0.0.1:8080' });
    expect(await resolver.resolve('billing')).toBe('http://10.0.0.1:8080');
    await clock.advance(T + 1);
    expect(await resolver.resolve('billing')).toBeUndefined();
  });

  it('watch reports the first answer, then each change of instance or endpoint, polling every I', async () => {
    const { clock, table, resolver } = setup();
    const changes: PrimaryChange[] = [];
    const unsubscribe = resolver.watch('billing', (c) => changes.push(c));
    await clock.advance(0);
    expect(changes).toEqual([{ utype: 'billing', primary: undefined, previous: undefined }]);

    await table.updateHeartbeat('a', 'billing', { endpoint: 'a:1' });
    await clock.advance(I - 1);
    expect(changes).toHaveLength(1);
    await clock.advance(1);
    expect(changes[1]).toMatchObject({ primary: { id: 'a', endpoint: 'a:1' }, previous: undefined });

    await table.updateHeartbeat('a', 'billing', { endpoint: 'a:1' }); // a heartbeat is no change
    await clock.advance(I);
    expect(changes).toHaveLength(2);

    await table.updateHeartbeat('a', 'billing', { endpoint: 'a:2' });
    await clock.advance(I);
    expect(changes[2]).toMatchObject({ primary: { endpoint: 'a:2' }, previous: { endpoint: 'a:1' } });

    await clock.advance(T + I); // no more heartbeats: expired
    expect(changes[3]).toMatchObject({ primary: undefined, previous: { id: 'a' } });

    unsubscribe();
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(0);
    await table.updateHeartbeat('b', 'billing');
    await clock.advance(3 * I);
    expect(changes).toHaveLength(4);
  });

  it('a failed poll changes nothing and is passed to onError', async () => {
    const clock = new VirtualClock();
    const kv = new DelayedKV(new MemoryKV({ clock }), clock, 0, prng(3));
    const resolver = new PrimaryResolver({ store: kv, namespace, clock, intervalMs: I, timeoutMs: T });
    const changes: PrimaryChange[] = [];
    const errors: unknown[] = [];
    const controller = new AbortController();
    resolver.watch('billing', (c) => changes.push(c), { signal: controller.signal, onError: (e) => errors.push(e) });
    await clock.advance(0);
    kv.down = true;
    await clock.advance(3 * I);
    expect(changes).toHaveLength(1);
    expect(errors).toHaveLength(3);
    controller.abort();
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('changes() iterates the same changes; breaking out stops the polling', async () => {
    const { clock, table, resolver } = setup();
    const seen: (string | undefined)[] = [];
    const consumer = (async () => {
      for await (const change of resolver.changes('billing')) {
        seen.push(change.primary?.id);
        if (seen.length === 3) break;
      }
    })();
    await clock.advance(0);
    await table.updateHeartbeat('a', 'billing');
    await clock.advance(I);
    await clock.advance(T + I);
    await consumer;
    expect(seen).toEqual([undefined, 'a', undefined]);
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('changes() rejects with the signal’s reason when it aborts', async () => {
    const { clock, resolver } = setup();
    const controller = new AbortController();
    const iterator = resolver.changes('billing', { signal: controller.signal });
    await clock.advance(0);
    expect((await iterator.next()).value).toMatchObject({ primary: undefined });
    const pending = iterator.next();
    controller.abort(new Error('bye'));
    await expect(pending).rejects.toThrow('bye');
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(0);
  });
});

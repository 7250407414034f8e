import { CompoundKey, MemoryKV } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { formatPing, parseIdKeyValue } from '../src/idKey.js';
import { Pinger } from '../src/Pinger.js';

const I = 100;

function setup() {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1, logCapacity: 10_000 });
  const kv = faults.view(store, 'f');
  const key = new CompoundKey('id/f', { window: 4 });
  const pinger = new Pinger({ kv, key, clock, opTimeoutMs: I / 2 });
  return { clock, store, faults, kv, key, pinger };
}

describe('id-key values', () => {
  it('parse strictly: PING with or without its round trip, PONG, LEAVE; nothing else', () => {
    expect(parseIdKeyValue('PING 7')).toEqual({ kind: 'ping', seq: 7 });
    expect(parseIdKeyValue('PING 7 12')).toEqual({ kind: 'ping', seq: 7, pongRoundTripMs: 12 });
    expect(parseIdKeyValue('PONG 0')).toEqual({ kind: 'pong', seq: 0 });
    expect(parseIdKeyValue('LEAVE')).toEqual({ kind: 'leave' });
    for (const bad of ['PING', 'PING 07', 'PING 7  1', 'PING 7 -1', 'PONG 7 1', 'PING 1 2 3', 'ping 1', 'LEAVE ', 'PING 99999999999999999']) {
      expect(parseIdKeyValue(bad), bad).toBeUndefined();
    }
  });

  it('format a PING with its round trip rounded to a millisecond', () => {
    expect(formatPing(3)).toBe('PING 3');
    expect(formatPing(3, 12.6)).toBe('PING 3 13');
  });
});

describe('Pinger', () => {
  it('costs one store command per step: an exchange that writes the PING', async () => {
    const { pinger, faults, store } = setup();
    await pinger.step();
    await pinger.step();
    expect(faults.operations().map((o) => o.op)).toEqual(['exchange', 'exchange']);
    expect(await store.get('id/f 0')).toBe('PING 2');
  });

  it('a PONG found in place of its last PING counts as answered, with the round trip since that PING', async () => {
    const { pinger, clock, store } = setup();
    await pinger.step();
    await clock.advance(30);
    await store.set('id/f 0', 'PONG 1');
    await clock.advance(70);
    expect(pinger.lastPongAt).toBeUndefined();
    await pinger.step();
    expect(pinger.lastPongAt).toBe(100);
    expect(pinger.lastPongRoundTripMs).toBe(100);
    // The next PING carries that round trip to the leader.
    expect(await store.get('id/f 0')).toBe('PING 2');
    await pinger.step();
    expect(await store.get('id/f 0')).toBe('PING 3 100');
  });

  it('its own PING found again means the leader did not answer', async () => {
    const { pinger, clock } = setup();
    await pinger.step();
    await clock.advance(I);
    await pinger.step();
    expect(pinger.lastPongAt).toBeUndefined();
  });

  it('what the key held before its first PING (a PONG left by an earlier run) is not an answer', async () => {
    const { pinger, store } = setup();
    await store.set('id/f 0', 'PONG 41');
    await pinger.step();
    expect(pinger.lastPongAt).toBeUndefined();
  });

  it('moves to the next nonce when its id key is unavailable, and what it finds there is not an answer', async () => {
    const { pinger, faults, store } = setup();
    await pinger.step();
    faults.keyUnavailable('id/f 0');
    await store.set('id/f 1', 'PONG 9');
    await pinger.step();
    expect(pinger.nonce).toBe(1);
    expect(await store.get('id/f 1')).toBe('PING 2');
    expect(pinger.lastPongAt).toBeUndefined();
  });

  it('leave writes LEAVE where it PINGs', async () => {
    const { pinger, store } = setup();
    await pinger.step();
    await pinger.leave();
    expect(await store.get('id/f 0')).toBe('LEAVE');
  });

  it('a PING still waiting for a connection when its deadline passes is never sent: it cannot land late over the PONG that answered the one before', async () => {
    const { pinger, clock, store, faults, kv } = setup();
    await pinger.step();
    await store.set('id/f 0', 'PONG 1');
    // The node's client is busy: one connection, held 200 ms by another operation.
    faults.connections({ node: 'f', size: 1, serviceMs: 200 });
    void kv.get('other').catch(() => undefined);
    const ping = pinger.step().then(
      () => 'written',
      (error: unknown) => (error as Error).message,
    );
    await clock.advance(I);
    expect(await ping).toMatch(/PING took longer than 50 ms/);
    await clock.advance(10 * I);
    // The PONG is still there for the next PING to find.
    expect(await store.get('id/f 0')).toBe('PONG 1');
  });
});

import { CompoundKey, FaultInjector, MemoryKV, StoreUnavailableError, VirtualClock } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { Pinger } from '../src/Pinger.js';

const KEY = 'roster/app/test/id/n2';
const OP_TIMEOUT = 500;

/** A pinger for node n2 on a fault-injecting view of a MemoryKV, all on one virtual clock. */
function setup() {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1 });
  const kv = faults.view(store, 'n2');
  const pinger = new Pinger({ kv, key: new CompoundKey(KEY), clock, opTimeoutMs: OP_TIMEOUT });
  return { clock, store, faults, pinger };
}

describe('Pinger', () => {
  it('the first step writes PING 1 at nonce 0; each later step writes the next sequence number', async () => {
    const { store, pinger } = setup();
    await pinger.step();
    expect(await store.get(`${KEY} 0`)).toBe('PING 1');
    await pinger.step();
    expect(await store.get(`${KEY} 0`)).toBe('PING 2');
    expect(pinger.lastPongAt).toBeUndefined();
  });

  it("the leader's PONG of the last PING is seen at the next step, with its round trip", async () => {
    const { clock, store, pinger } = setup();
    await pinger.step();
    await clock.advance(300);
    await store.set(`${KEY} 0`, 'PONG 1');
    await clock.advance(700);
    await pinger.step();
    expect(pinger.lastPongAt).toBe(1000);
    expect(pinger.lastRttMs).toBe(1000);
    expect(await store.get(`${KEY} 0`)).toBe('PING 2');
  });

  it('a PONG of one of the last three PINGs counts; an older one, a future one or a PING does not', async () => {
    const { clock, store, pinger } = setup();
    for (let i = 0; i < 5; i++) await pinger.step(); // PING 5 written
    // Each step reads what is there, then writes the next PING: PING 6, 7, 8, 9.
    for (const value of ['PONG 2', 'PONG 7', 'PING 7', 'garbage']) {
      await store.set(`${KEY} 0`, value);
      await pinger.step();
      expect(pinger.lastPongAt, value).toBeUndefined();
    }
    // PING 9 is the last one written; PONG 7 answers the one two steps back.
    await clock.advance(50);
    await store.set(`${KEY} 0`, 'PONG 7');
    await pinger.step();
    expect(pinger.lastPongAt).toBe(50);
  });

  it('moves to the next nonce when its id key is unavailable, and reads its PONG there', async () => {
    const { clock, store, faults, pinger } = setup();
    faults.keyUnavailable(`${KEY} 0`, { forMs: 10_000 });
    await pinger.step();
    expect(await store.get(`${KEY} 1`)).toBe('PING 1');
    expect(await store.get(`${KEY} 0`)).toBeNull();
    await store.set(`${KEY} 1`, 'PONG 1');
    await clock.advance(100);
    await pinger.step();
    expect(pinger.lastPongAt).toBe(100);
    expect(await store.get(`${KEY} 1`)).toBe('PING 2');
  });

  it('a failed read of the PONG does not stop the next PING', async () => {
    const { store, faults, pinger } = setup();
    await pinger.step();
    faults.failures({ probability: 1, ops: ['get'], forMs: 1000 });
    await pinger.step();
    expect(await store.get(`${KEY} 0`)).toBe('PING 2');
  });

  it('rejects when the PING cannot be written, and PINGs the same number again next time', async () => {
    const { clock, store, faults, pinger } = setup();
    await pinger.step();
    faults.storeOutage({ forMs: 1000 });
    await expect(pinger.step()).rejects.toSatisfy(StoreUnavailableError.is);
    await clock.advance(1000);
    await pinger.step();
    expect(await store.get(`${KEY} 0`)).toBe('PING 2');
  });

  it('a write the store stalls on rejects after the operation timeout', async () => {
    const { clock, faults, pinger } = setup();
    faults.latency({ minMs: 5000, maxMs: 5000, forMs: 10_000 });
    const step = pinger.step();
    const outcome = step.then(() => 'resolved', (error: unknown) => error);
    await clock.advance(OP_TIMEOUT - 1);
    await clock.advance(1);
    const error = await outcome;
    expect(StoreUnavailableError.is(error)).toBe(true);
    expect(String(error)).toContain(`took longer than ${OP_TIMEOUT} ms`);
    await clock.advance(10_000);
  });

  it('leave writes LEAVE where the node PINGs, moving on when that nonce is unavailable', async () => {
    const { store, faults, pinger } = setup();
    await pinger.step();
    await pinger.leave();
    expect(await store.get(`${KEY} 0`)).toBe('LEAVE');
    faults.keyUnavailable(`${KEY} 0`, { forMs: 1000 });
    await pinger.leave();
    expect(await store.get(`${KEY} 1`)).toBe('LEAVE');
  });
});

import { CompoundKey, MemoryKV, StoreUnavailableError } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { Joiner } from '../src/Joiner.js';

const KEY = 'roster/app/test/join';
const OP_TIMEOUT = 500;

function setup() {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1 });
  const joiner = (id: string, weight = 1) =>
    new Joiner({ kv: faults.view(store, id), key: new CompoundKey(KEY), clock, self: { id, weight }, opTimeoutMs: OP_TIMEOUT });
  return { clock, store, faults, joiner };
}

describe('Joiner', () => {
  it('appends " id" to the join key, or " id:weight" for a weight other than 1', async () => {
    const { store, joiner } = setup();
    await joiner('n1').append();
    await joiner('n2', 4).append();
    expect(await store.get(`${KEY} 0`)).toBe(' n1 n2:4');
  });

  it('many nodes joining at once all land in the key', async () => {
    const { store, joiner } = setup();
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => joiner(id).append()));
    expect((await store.get(`${KEY} 0`))!.split(' ').filter(Boolean).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('is due before its first append, not right after one, and again once the retry time has passed', async () => {
    const { clock, joiner } = setup();
    const j = joiner('n1');
    expect(j.due(5000)).toBe(true);
    await j.append();
    expect(j.due(5000)).toBe(false);
    await clock.advance(4999);
    expect(j.due(5000)).toBe(false);
    await clock.advance(1);
    expect(j.due(5000)).toBe(true);
  });

  it('after a failed append, is due again only once the wait after a failure has passed (none by default)', async () => {
    const { clock, faults, joiner } = setup();
    const j = joiner('n1');
    const outage = faults.storeOutage({ forMs: 10_000 });
    await expect(j.append()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(j.due(5000)).toBe(true);
    expect(j.due(5000, 2000)).toBe(false);
    await clock.advance(2000);
    expect(j.due(5000, 2000)).toBe(true);
    outage.heal();
    await j.append();
    expect(j.due(5000, 2000)).toBe(false);
  });

  it('reset makes the next append due at once', async () => {
    const { joiner } = setup();
    const j = joiner('n1');
    await j.append();
    j.reset();
    expect(j.due(5000)).toBe(true);
  });

  it('moves to the next nonce of the join key when it is unavailable', async () => {
    const { store, faults, joiner } = setup();
    faults.keyUnavailable(`${KEY} 0`, { forMs: 1000 });
    const j = joiner('n1');
    await j.append();
    expect(await store.get(`${KEY} 1`)).toBe(' n1');
    await j.append();
    expect(await store.get(`${KEY} 1`)).toBe(' n1 n1');
  });

  it('a failed append rejects and leaves the join due', async () => {
    const { faults, joiner } = setup();
    const j = joiner('n1');
    faults.storeOutage({ forMs: 1000 });
    await expect(j.append()).rejects.toSatisfy(StoreUnavailableError.is);
    expect(j.due(5000)).toBe(true);
  });

  it('an append the store stalls on moves to the next nonce once, and rejects after two operation timeouts in a row', async () => {
    const { clock, faults, joiner } = setup();
    faults.latency({ minMs: 3000, maxMs: 3000, forMs: 10_000 });
    const j = joiner('n1');
    let settled = false;
    const outcome = j.append().then(() => 'resolved', (error: unknown) => error).finally(() => (settled = true));
    await clock.advance(OP_TIMEOUT);
    expect(settled).toBe(false); // one hung key is that key's fault: the next nonce is tried
    await clock.advance(OP_TIMEOUT);
    expect(StoreUnavailableError.is(await outcome)).toBe(true);
    expect(j.due(5000)).toBe(true);
    await clock.advance(10_000);
  });
});

import { CompoundKey, FaultInjector, KeyUnavailableError, MemoryKV, MemoryLogger, VirtualClock } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { LeaderWindow } from '../src/LeaderWindow.js';

const KEY = 'roster/app/test/leader';
const TIMEOUT = 500;

function setup() {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1 });
  const logger = new MemoryLogger();
  const garbage: { nonce: number; raw: string; reason: string }[] = [];
  const window = new LeaderWindow({
    kv: faults.view(store, 'n1'),
    key: new CompoundKey(KEY),
    clock,
    logger,
    timeoutMs: TIMEOUT,
    onGarbage: (nonce, raw, reason) => garbage.push({ nonce, raw, reason }),
  });
  return { clock, store, faults, logger, garbage, window };
}

describe('LeaderWindow', () => {
  it('reads every nonce of the window and says what each holds', async () => {
    const { store, faults, window } = setup();
    await store.set(`${KEY} 1`, '2 1 5 n2 n2 n3');
    await store.set(`${KEY} 2`, '2 1 5 n2 n2 n2');
    faults.keyUnavailable(`${KEY} 3`, { forMs: 1000 });
    const read = await window.read();
    expect(read.slots.map((s) => [s.nonce, s.state])).toEqual([
      [0, 'empty'],
      [1, 'broadcast'],
      [2, 'garbage'],
      [3, 'unavailable'],
    ]);
    expect(read.broadcasts).toEqual([{ era: 2, nonce: 1, version: 5, id: 'n2', members: [{ id: 'n2', weight: 1 }, { id: 'n3', weight: 1 }] }]);
    expect(read.reachable).toBe(true);
    const slot3 = read.slots[3]!;
    expect(slot3.state === 'unavailable' && KeyUnavailableError.is(slot3.error)).toBe(true);
  });

  it('the best broadcast is the best leadership (highest era, then lowest nonce), and of its copies the highest version', async () => {
    const { store, window } = setup();
    await store.set(`${KEY} 0`, '3 1 4 n3 n3');
    await store.set(`${KEY} 1`, '3 1 9 n3 n3 n1');
    await store.set(`${KEY} 2`, '3 2 50 n2 n2');
    await store.set(`${KEY} 3`, '2 0 99 n1 n1');
    expect((await window.read()).best).toMatchObject({ era: 3, nonce: 1, version: 9, id: 'n3' });
  });

  it('a value that does not parse is reported once, logged, and never adopted', async () => {
    const { store, window, garbage, logger } = setup();
    await store.set(`${KEY} 0`, '9 0 1 ghost ghost ');
    await store.set(`${KEY} 1`, '1 1 1 n1 n1');
    const read = await window.read();
    expect(read.best).toMatchObject({ era: 1, id: 'n1' });
    expect(garbage).toEqual([{ nonce: 0, raw: '9 0 1 ghost ghost ', reason: expect.any(String) }]);
    expect(logger.entries.filter((e) => e.level === 'warn')).toHaveLength(1);
  });

  it('nothing reachable: no best broadcast, and the read says so', async () => {
    const { faults, window } = setup();
    faults.storeOutage({ forMs: 1000 });
    const read = await window.read();
    expect(read.reachable).toBe(false);
    expect(read.best).toBeUndefined();
    expect(read.slots.every((s) => s.state === 'unavailable')).toBe(true);
  });

  it('an empty window is reachable and has no best broadcast', async () => {
    const { window } = setup();
    const read = await window.read();
    expect(read.reachable).toBe(true);
    expect(read.best).toBeUndefined();
    expect(read.slots.every((s) => s.state === 'empty')).toBe(true);
  });

  it('a read the store stalls on gives up after the timeout, every nonce unavailable, without rejecting', async () => {
    const { clock, store, faults, window } = setup();
    await store.set(`${KEY} 0`, '1 0 1 n1 n1');
    faults.latency({ minMs: 2000, maxMs: 2000, forMs: 10_000, ops: ['get'] });
    const reading = window.read();
    await clock.advance(TIMEOUT);
    const read = await reading;
    expect(read.reachable).toBe(false);
    expect(read.best).toBeUndefined();
    expect(read.startedAt).toBe(0);
    expect(read.at).toBe(TIMEOUT);
    await clock.advance(10_000);
  });

  it('records when the read started and when it completed, on the local clock', async () => {
    const { clock, faults, window } = setup();
    await clock.advance(1000);
    faults.latency({ minMs: 120, maxMs: 120, forMs: 10_000 });
    const reading = window.read();
    await clock.advance(200);
    const read = await reading;
    expect([read.startedAt, read.at]).toEqual([1000, 1120]);
  });
});

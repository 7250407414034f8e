import { MemoryKV, StoreUnavailableError, type Clock, type KV } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { InstrumentedKV } from '../src/index.js';

/** A clock whose `now()` the test sets. */
function manualClock(): Clock & { t: number } {
  const clock = { t: 0, now: () => clock.t, wallTime: () => clock.t, setTimer: () => ({ cancel() {} }) };
  return clock;
}

describe('InstrumentedKV.health.storeRoundTripMs: the store round trip an operator can act on', () => {
  it('averages how long each store operation took, from call to answer, and passes values through', async () => {
    const clock = manualClock();
    const kv = new InstrumentedKV(new MemoryKV(), { clock });
    expect(kv.health.storeRoundTripMs).toBeUndefined();
    const set = kv.set('k', 'v');
    clock.t += 8;
    await set;
    expect(kv.health.storeRoundTripMs).toBe(8);
    const got = kv.get('k');
    clock.t += 16;
    expect(await got).toBe('v');
    expect(kv.health.storeRoundTripMs).toBe(9); // 8 + (16 - 8) / 8
    expect(await kv.exchange('k', 'w')).toBe('v');
    expect(await kv.getRange('k', 0, 0)).toBe('w');
    expect(kv.name).toBe('MemoryKV');
  });

  it('leaves out failed operations and those answered past the deadline, and passes errors through', async () => {
    const clock = manualClock();
    const failing = { ...new MemoryKV(), name: 'down', get: () => Promise.reject(new StoreUnavailableError('down')) } as unknown as KV;
    const kv = new InstrumentedKV(failing, { clock });
    const read = kv.get('k');
    clock.t += 1000;
    await expect(read).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(kv.health.storeRoundTripMs).toBeUndefined();

    const slow = new InstrumentedKV(new MemoryKV(), { clock, deadlineMs: 100 });
    const late = slow.set('k', 'v');
    clock.t += 500;
    await late;
    expect(slow.health.storeRoundTripMs).toBeUndefined();
  });
});

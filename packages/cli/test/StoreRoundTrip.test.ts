import { MemoryKV, StoreUnavailableError, type Clock, type KV } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { StoreRoundTrip } from '../src/internal/StoreRoundTrip.js';

/** A clock whose `now()` the test sets. */
function manualClock(): Clock & { t: number } {
  const clock = { t: 0, now: () => clock.t, wallTime: () => clock.t, setTimer: () => ({ cancel() {} }) };
  return clock;
}

describe('StoreRoundTrip: the store round trip the status page shows', () => {
  it('averages how long each store operation took, from call to answer, and passes values through', async () => {
    const clock = manualClock();
    const roundTrip = new StoreRoundTrip(clock);
    const kv = roundTrip.wrap(new MemoryKV());
    expect(roundTrip.ms).toBeUndefined();
    const set = kv.set('k', 'v');
    clock.t += 8;
    await set;
    expect(roundTrip.ms).toBe(8);
    const got = kv.get('k');
    clock.t += 16;
    expect(await got).toBe('v');
    expect(roundTrip.ms).toBe(9); // 8 + (16 - 8) / 8
    expect(await kv.exchange('k', 'w')).toBe('v');
    expect(await kv.getRange('k', 0, 0)).toBe('w');
    expect(kv.name).toBe('MemoryKV');
  });

  it('leaves failed operations out of the average and passes their errors through', async () => {
    const clock = manualClock();
    const roundTrip = new StoreRoundTrip(clock);
    const failing = { ...new MemoryKV(), name: 'down', get: () => Promise.reject(new StoreUnavailableError('down')) } as unknown as KV;
    const kv = roundTrip.wrap(failing);
    const read = kv.get('k');
    clock.t += 1000;
    await expect(read).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(roundTrip.ms).toBeUndefined();
  });
});

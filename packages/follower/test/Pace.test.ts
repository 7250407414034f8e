import { MemoryKV } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { MAX_PACE, Pace, watchRoundTrips } from '../src/Pace.js';

/** τ = 500 ms, the normal pace up to τ/2 = 250 ms: the factor goes from 1 there to 4 at τ. */
const pace = () => new Pace({ paceRoundTripMs: 250, operationTimeoutMs: 500 });

describe('Pace', () => {
  it('runs at the normal pace (factor 1) before any round trip and while the mean round trip stays within τ/2', () => {
    const p = pace();
    expect(p.factor).toBe(1);
    for (let i = 0; i < 50; i++) p.answered(i % 2 === 0 ? 2 : 240);
    expect(p.factor).toBe(1);
  });

  it('backs off linearly above τ/2: halfway to τ is halfway to the slowest pace', () => {
    const p = pace();
    for (let i = 0; i < 200; i++) p.answered(375);
    expect(p.factor).toBeCloseTo(2.5, 5);
  });

  it('counts a timeout as τ, so the factor never exceeds the slowest pace, 4', () => {
    const p = pace();
    for (let i = 0; i < 200; i++) p.failed(600);
    expect(p.factor).toBeCloseTo(MAX_PACE, 5);
    for (let i = 0; i < 200; i++) p.answered(10_000);
    expect(p.factor).toBeCloseTo(MAX_PACE, 5);
    expect(MAX_PACE).toBe(4);
  });

  it('ignores a failure that came before τ: a store that refuses at once costs nothing to ask', () => {
    const p = pace();
    for (let i = 0; i < 100; i++) p.failed(3);
    expect(p.factor).toBe(1);
    expect(p.meanRoundTripMs).toBeUndefined();
  });

  it('speeds up again when the store recovers: from 4 back to 1 within a few quick round trips', () => {
    const p = pace();
    for (let i = 0; i < 200; i++) p.failed(500);
    let n = 0;
    while (p.factor > 1) {
      p.answered(1);
      n++;
    }
    expect(n).toBeGreaterThan(3);
    expect(n).toBeLessThanOrEqual(8);
  });
});

describe('watchRoundTrips', () => {
  it('times every operation from its call to the store\'s answer, and passes results through unchanged', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const faults = new FaultInjector({ clock, seed: 1 });
    const p = pace();
    const kv = watchRoundTrips(faults.view(store), p, clock);
    faults.latency({ minMs: 400, maxMs: 400 });
    const set = kv.set('k', 'v');
    await clock.advance(400);
    await set;
    const got = kv.get('k');
    await clock.advance(400);
    expect(await got).toBe('v');
    expect(p.meanRoundTripMs).toBe(400);
    expect(p.factor).toBeCloseTo(1 + (3 * 150) / 250, 5);
    expect(kv.capabilities).toBe(store.capabilities);
  });

  it('counts a failure after τ as a timeout, a quick one not at all, and rethrows both', async () => {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    const faults = new FaultInjector({ clock, seed: 1 });
    const p = pace();
    const kv = watchRoundTrips(faults.view(store), p, clock);
    faults.storeOutage({ forMs: 10_000 });
    await expect(kv.get('k')).rejects.toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
    expect(p.meanRoundTripMs).toBeUndefined();
    faults.healAll();
    faults.storeOutage({ forMs: 10_000, stallMs: 700 });
    const late = kv.get('k');
    const outcome = expect(late).rejects.toMatchObject({ code: 'KV_STORE_UNAVAILABLE' });
    await clock.advance(700);
    await outcome;
    expect(p.meanRoundTripMs).toBe(500);
  });
});

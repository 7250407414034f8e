import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@roster/testing';
import { CONNECT_BACKOFF_CAP_MS, ConnectBackOff, connectSpacing } from '../src/backend/ConnectBackOff.js';

/** Opens whenever allowed, polling every ms for `forMs`; returns the times of the openings. */
async function openings(clock: VirtualClock, backOff: ConnectBackOff, forMs: number): Promise<number[]> {
  const start = clock.now();
  const at: number[] = [];
  while (clock.now() - start < forMs) {
    if (backOff.tryOpen()) at.push(clock.now() - start);
    await clock.advance(1);
  }
  return at;
}

describe('ConnectBackOff', () => {
  it('does not limit new connections while the store answers', () => {
    const backOff = new ConnectBackOff({ clock: new VirtualClock() });
    for (let i = 0; i < 100; i++) expect(backOff.tryOpen()).toBe(true);
    expect(backOff.failing).toBe(false);
    expect(backOff.waitMs).toBe(0);
  });

  it('after a failure, opens one at once, then after 100, 200, 400 ms and every 500 ms (no jitter drawn)', async () => {
    const clock = new VirtualClock();
    const backOff = new ConnectBackOff({ clock, random: () => 0 });
    backOff.failed();
    expect(await openings(clock, backOff, 3000)).toEqual([0, 100, 300, 700, 1200, 1700, 2200, 2700]);
  });

  it('with the most jitter, still at most 10 new connections in the first 3 s and 2.7 a second after', async () => {
    const clock = new VirtualClock();
    const backOff = new ConnectBackOff({ clock, random: () => 0.999999 });
    backOff.failed();
    expect((await openings(clock, backOff, 3000)).length).toBeLessThanOrEqual(10);
    expect((await openings(clock, backOff, 3000)).length).toBeLessThanOrEqual(9);
  });

  it('says how long until the next connection, and counts further failures as the same outage', async () => {
    const clock = new VirtualClock();
    const backOff = new ConnectBackOff({ clock, random: () => 0 });
    backOff.failed();
    expect(backOff.tryOpen()).toBe(true);
    await clock.advance(30);
    backOff.failed();
    expect(backOff.tryOpen()).toBe(false);
    expect(backOff.waitMs).toBe(70);
  });

  it('an answer ends the back-off; the next failure starts it over from the shortest spacing', async () => {
    const clock = new VirtualClock();
    const backOff = new ConnectBackOff({ clock, random: () => 0 });
    backOff.failed();
    await openings(clock, backOff, 2000);
    backOff.succeeded();
    expect(backOff.tryOpen() && backOff.tryOpen()).toBe(true);
    backOff.failed();
    expect(await openings(clock, backOff, 350)).toEqual([0, 100, 300]);
  });

  it('spacings double from 100 ms up to the cap, each less up to a quarter', () => {
    expect([0, 1, 2, 3, 10, 1000].map((n) => connectSpacing(n, () => 0))).toEqual([100, 200, 400, 500, 500, 500]);
    expect(connectSpacing(0, () => 0.999999)).toBeGreaterThan(75);
    expect(connectSpacing(50, () => 0.5)).toBe(CONNECT_BACKOFF_CAP_MS * 0.875);
  });
});

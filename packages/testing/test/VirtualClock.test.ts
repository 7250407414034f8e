import { describe, expect, it } from 'vitest';
import { sleep } from '@roster/kv-adapter/internal';
import { VirtualClock } from '../src/index.js';

describe('VirtualClock', () => {
  it('fires timers in due order, ties in creation order', async () => {
    const clock = new VirtualClock();
    const order: string[] = [];
    clock.setTimer(() => order.push('b'), 20);
    clock.setTimer(() => order.push('a'), 10);
    clock.setTimer(() => order.push('c'), 20);
    await clock.advance(25);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(clock.now()).toBe(25);
  });

  it('runs async code between timers', async () => {
    const clock = new VirtualClock();
    const seen: number[] = [];
    void (async () => {
      for (let i = 0; i < 3; i++) {
        await sleep(clock, 100);
        await Promise.resolve();
        seen.push(clock.now());
      }
    })();
    await clock.advance(1000);
    expect(seen).toEqual([100, 200, 300]);
  });

  it('cancelled timers never fire', async () => {
    const clock = new VirtualClock();
    let fired = false;
    clock.setTimer(() => (fired = true), 5).cancel();
    await clock.advance(10);
    expect(fired).toBe(false);
    expect(clock.pendingTimers).toBe(0);
  });

  it('sleep rejects with the signal reason on abort', async () => {
    const clock = new VirtualClock();
    const ac = new AbortController();
    const p = sleep(clock, 1000, ac.signal);
    ac.abort(new Error('bye'));
    await expect(p).rejects.toThrow('bye');
    expect(clock.pendingTimers).toBe(0);
  });

  it('wallTime follows now from the epoch', async () => {
    const clock = new VirtualClock({ epoch: 1000 });
    await clock.advance(50);
    expect(clock.wallTime()).toBe(1050);
  });
});

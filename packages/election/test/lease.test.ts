import { describe, expect, it } from 'vitest';
import { Cluster, I, T } from './support/harness.js';
import { HeldClock } from './support/HeldClock.js';

describe('the lease', () => {
  it('isLeader() turns false at the lease deadline even if paused: no timer of the node runs, the check reads the clock', async () => {
    const c = new Cluster();
    const clock = new HeldClock(c.clock);
    const a = c.add('a', { clock });
    await c.start('a');
    await c.until(() => a.isLeader(), 20 * T);
    const signal = a.leadership;
    clock.pause();
    await c.clock.advance(T / 2 + I);
    // Nothing of `a` ran meanwhile (its lease timer is held too), yet it no longer calls itself leader.
    expect(signal?.aborted).toBe(false);
    expect(a.role).toBe('leader');
    expect(a.isLeader()).toBe(false);
    clock.resume();
    await c.stopAll();
  });
});

import { describe, expect, it } from 'vitest';
import { VirtualClock } from '@roster/testing';
import { LocalDeadline } from '../src/util/LocalDeadline.js';

function setup(durationMs = 2500) {
  const clock = new VirtualClock();
  const expired: number[] = [];
  const deadline = new LocalDeadline(clock, durationMs, () => expired.push(clock.now()));
  return { clock, expired, deadline };
}

describe('LocalDeadline', () => {
  it('calls onExpire once, durationMs after the reference reading', async () => {
    const { clock, expired, deadline } = setup();
    expect(deadline.armed).toBe(false);
    deadline.arm(0);
    expect(deadline.armed).toBe(true);
    await clock.advance(2499);
    expect(expired).toEqual([]);
    await clock.advance(1);
    expect(expired).toEqual([2500]);
    expect(deadline.armed).toBe(false);
    await clock.advance(10_000);
    expect(expired).toEqual([2500]);
  });

  it('counts from the reference reading, not from when it is armed', async () => {
    const { clock, expired, deadline } = setup();
    await clock.advance(1000);
    // The publication started at 400 and was acknowledged at 1000: the lease runs from 400.
    deadline.arm(400);
    await clock.advance(10_000);
    expect(expired).toEqual([2900]);
  });

  it('re-arming replaces the deadline: only the latest one fires', async () => {
    const { clock, expired, deadline } = setup();
    deadline.arm(0);
    await clock.advance(2000);
    deadline.arm(2000);
    await clock.advance(1000);
    expect(expired).toEqual([]);
    await clock.advance(10_000);
    expect(expired).toEqual([4500]);
  });

  it('cancel removes the deadline', async () => {
    const { clock, expired, deadline } = setup();
    deadline.arm(0);
    deadline.cancel();
    expect(deadline.armed).toBe(false);
    await clock.advance(10_000);
    expect(expired).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a deadline already past when armed expires on the next timer turn', async () => {
    const { clock, expired, deadline } = setup();
    await clock.advance(5000);
    deadline.arm(1000);
    expect(expired).toEqual([]);
    await clock.advance(0);
    expect(expired).toEqual([5000]);
  });

  it('can be armed again after it expired', async () => {
    const { clock, expired, deadline } = setup(100);
    deadline.arm(0);
    await clock.advance(100);
    deadline.arm(100);
    await clock.advance(100);
    expect(expired).toEqual([100, 200]);
  });
});

import { describe, expect, it } from 'vitest';
import { AbortError, RosterError, StoreUnavailableError, type Clock } from '../src/index.js';
import { VirtualClock } from '@roster/testing';
import { deadline, raceSignal, withDeadline } from '../src/util/deadline.js';

/** Settles `promise` into a value the test can inspect without awaiting it first. */
function track<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } {
  const box: { state: 'pending' | 'resolved' | 'rejected'; value?: T; error?: unknown } = { state: 'pending' };
  promise.then(
    (value) => Object.assign(box, { state: 'resolved', value }),
    (error: unknown) => Object.assign(box, { state: 'rejected', error }),
  );
  return box;
}

const never = <T>(): Promise<T> => new Promise<T>(() => {});

describe('deadline', () => {
  it('aborts its signal exactly ms after now on the clock, with an AbortError by default', async () => {
    const clock = new VirtualClock();
    const d = deadline(clock, 1000);
    await clock.advance(999);
    expect(d.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(d.signal.aborted).toBe(true);
    expect(d.signal.reason).toBeInstanceOf(AbortError);
    expect(RosterError.is(d.signal.reason, 'ABORTED')).toBe(true);
  });

  it('aborts with the reason given', async () => {
    const clock = new VirtualClock();
    const why = new Error('too slow');
    const d = deadline(clock, 10, undefined, () => why);
    await clock.advance(10);
    expect(d.signal.reason).toBe(why);
  });

  it("aborts as soon as the parent aborts, with the parent's reason", async () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    const d = deadline(clock, 1000, parent.signal);
    const why = new Error('stopping');
    parent.abort(why);
    expect(d.signal.aborted).toBe(true);
    expect(d.signal.reason).toBe(why);
  });

  it('a parent aborted already aborts the deadline at once', () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    parent.abort('gone');
    expect(deadline(clock, 1000, parent.signal).signal.reason).toBe('gone');
  });

  it('abort() aborts now, with an AbortError unless a reason is given', () => {
    const clock = new VirtualClock();
    const a = deadline(clock, 1000);
    a.abort();
    expect(a.signal.reason).toBeInstanceOf(AbortError);
    const b = deadline(clock, 1000);
    b.abort('enough');
    expect(b.signal.reason).toBe('enough');
  });

  it('dispose cancels the timer and detaches from the parent', async () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    const d = deadline(clock, 1000, parent.signal);
    d.dispose();
    expect(clock.pendingTimers).toBe(0);
    parent.abort();
    await clock.advance(2000);
    expect(d.signal.aborted).toBe(false);
  });

  it('a negative duration counts as zero: the signal aborts on the next timer turn', async () => {
    const clock = new VirtualClock();
    const d = deadline(clock, -5);
    await clock.advance(0);
    expect(d.signal.aborted).toBe(true);
  });
});

describe('raceSignal', () => {
  it('settles like the promise when the signal does not abort', async () => {
    const controller = new AbortController();
    await expect(raceSignal(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    await expect(raceSignal(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no');
    await expect(raceSignal(Promise.resolve(8), undefined)).resolves.toBe(8);
  });

  it("rejects with the signal's reason as soon as it aborts, without waiting for the promise", async () => {
    const controller = new AbortController();
    const raced = track(raceSignal(never<number>(), controller.signal));
    await Promise.resolve();
    expect(raced.state).toBe('pending');
    controller.abort('cancelled');
    await Promise.resolve();
    await Promise.resolve();
    expect(raced).toMatchObject({ state: 'rejected', error: 'cancelled' });
  });

  it('an aborted signal rejects at once, and the abandoned promise never becomes an unhandled rejection', async () => {
    const controller = new AbortController();
    controller.abort('already');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(raceSignal(Promise.reject(new Error('late failure')), controller.signal)).rejects.toBe('already');
      const late = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('later failure')), 1));
      const other = new AbortController();
      const raced = raceSignal(late, other.signal);
      other.abort('first');
      await expect(raced).rejects.toBe('first');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('withDeadline', () => {
  it('resolves and rejects as the work does when it settles in time, leaving no timer behind', async () => {
    const clock = new VirtualClock();
    await expect(withDeadline(clock, 100, 'read', Promise.resolve('v'))).resolves.toBe('v');
    await expect(withDeadline(clock, 100, 'read', Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects with StoreUnavailableError "<what> took longer than <ms> ms" when the work is late', async () => {
    const clock = new VirtualClock();
    const outcome = track(withDeadline(clock, 250, 'leader window read', never()));
    await clock.advance(249);
    expect(outcome.state).toBe('pending');
    await clock.advance(1);
    expect(outcome.state).toBe('rejected');
    expect(StoreUnavailableError.is(outcome.error)).toBe(true);
    expect((outcome.error as Error).message).toContain('leader window read took longer than 250 ms');
  });

  it('hands the work a signal that aborts when the time is up, so the store can give up too', async () => {
    const clock = new VirtualClock();
    let seen: AbortSignal | undefined;
    const outcome = track(
      withDeadline(clock, 100, 'write', (signal) => {
        seen = signal;
        return never();
      }),
    );
    expect(seen?.aborted).toBe(false);
    await clock.advance(100);
    expect(seen?.aborted).toBe(true);
    expect(StoreUnavailableError.is(outcome.error)).toBe(true);
  });

  it("rejects with the parent's reason when the parent aborts first", async () => {
    const clock = new VirtualClock();
    const parent = new AbortController();
    const outcome = track(withDeadline(clock, 1000, 'write', never(), parent.signal));
    parent.abort('node stopping');
    await clock.advance(0);
    expect(outcome).toMatchObject({ state: 'rejected', error: 'node stopping' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a deadline that fires late (the event loop was busy) lets an answer that arrived meanwhile win', async () => {
    const virtual = new VirtualClock();
    let lagMs = 0;
    // A clock whose timers run late by lagMs, as on a busy event loop.
    const clock: Clock = { now: () => virtual.now() + lagMs, wallTime: () => virtual.wallTime(), setTimer: (fn, ms) => virtual.setTimer(fn, ms) };
    let answer!: (value: string) => void;
    const answered = track(withDeadline(clock, 100, 'read', new Promise<string>((resolve) => (answer = resolve))));
    const unanswered = track(withDeadline(clock, 100, 'read', never<string>()));
    // The answer is handled in the same turn as the overdue deadline, after its timer.
    virtual.setTimer(() => answer('v'), 100);
    lagMs = 30;
    await virtual.advance(100);
    expect(answered).toMatchObject({ state: 'resolved', value: 'v' });
    expect(unanswered.state).toBe('rejected');
    expect(StoreUnavailableError.is(unanswered.error)).toBe(true);
    expect(virtual.pendingTimers).toBe(0);
  });

  it('a late deadline signal aborts one timer turn later, after what arrived meanwhile', async () => {
    const virtual = new VirtualClock();
    let lagMs = 0;
    const clock: Clock = { now: () => virtual.now() + lagMs, wallTime: () => virtual.wallTime(), setTimer: (fn, ms) => virtual.setTimer(fn, ms) };
    const d = deadline(clock, 100);
    let abortedWhenAnswered: boolean | undefined;
    virtual.setTimer(() => (abortedWhenAnswered = d.signal.aborted), 100);
    lagMs = 30;
    await virtual.advance(100);
    expect(abortedWhenAnswered).toBe(false);
    expect(d.signal.aborted).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { LifoGate } from '../src/backend/LifoGate.js';
import { StoreUnavailableError } from '../src/errors.js';

/** The order in which waiters got their place, for the assertions. */
function recorder() {
  const order: string[] = [];
  const releases = new Map<string, () => void>();
  const enter = (gate: LifoGate, name: string, signal?: AbortSignal): Promise<void> =>
    gate.acquire(signal).then((release) => {
      order.push(name);
      releases.set(name, release);
    });
  return { order, releases, enter };
}

describe('LifoGate', () => {
  it('lets `size` holders in at once; a freed place goes to the newest waiter', async () => {
    const gate = new LifoGate(2);
    const { order, releases, enter } = recorder();
    await enter(gate, 'a');
    await enter(gate, 'b');
    const waiting = [enter(gate, 'old'), enter(gate, 'older'), enter(gate, 'newest')];
    await Promise.resolve();
    expect(order).toEqual(['a', 'b']);
    expect(gate.waiting).toBe(3);
    releases.get('a')!();
    releases.get('b')!();
    await Promise.all(waiting.slice(1));
    expect(order).toEqual(['a', 'b', 'newest', 'older']);
    // Giving a place back twice frees it once.
    releases.get('newest')!();
    releases.get('newest')!();
    await waiting[0];
    expect(order.at(-1)).toBe('old');
    expect(gate.waiting).toBe(0);
  });

  it('an urgent waiter (a lease renewal) is served before every other, newest first within each lane', async () => {
    const gate = new LifoGate(1);
    const { order, releases } = recorder();
    const enter = (name: string, urgent: boolean): Promise<void> =>
      gate.acquire(undefined, urgent).then((release) => {
        order.push(name);
        releases.set(name, release);
      });
    await enter('holder', false);
    const waiting = [enter('ping', false), enter('renew', true), enter('pong', false), enter('renew again', true)];
    await Promise.resolve();
    expect(gate.waiting).toBe(4);
    for (const name of ['holder', 'renew again', 'renew', 'pong']) {
      releases.get(name)!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiting);
    expect(order).toEqual(['holder', 'renew again', 'renew', 'pong', 'ping']);
  });

  it('a waiter whose deadline passes leaves unserved, with its signal\'s reason, and takes no place', async () => {
    const gate = new LifoGate(1);
    const { order, releases, enter } = recorder();
    await enter(gate, 'holder');
    const deadline = new AbortController();
    const late = enter(gate, 'late', deadline.signal).catch((error: unknown) => error);
    const next = enter(gate, 'next');
    deadline.abort(new Error('took longer than 500 ms'));
    expect(((await late) as Error).message).toBe('took longer than 500 ms');
    releases.get('holder')!();
    await next;
    expect(order).toEqual(['holder', 'next']);
    // Already aborted: refused at once.
    await expect(gate.acquire(deadline.signal)).rejects.toThrow('took longer than 500 ms');
  });

  it('a timeout of an operation that waited, never sent or sent late, is marked `queued`; one served at once is not', async () => {
    const gate = new LifoGate(1);
    const release = await gate.acquire();
    const deadline = new AbortController();
    const waiting = gate.acquire(deadline.signal).catch((error: unknown) => error);
    const timeout = new StoreUnavailableError('PING took longer than 50 ms', { timedOut: true });
    expect(timeout.queued).toBe(false);
    deadline.abort(timeout);
    // Marked in the abort's own dispatch, before any caller racing the same signal sees it.
    expect(timeout.queued).toBe(true);
    expect(await waiting).toBe(timeout);
    // Served after a wait, and out when its deadline passes: sent late, marked too.
    const late = new AbortController();
    const served = gate.acquire(late.signal);
    release();
    const releaseLate = await served;
    const lateTimeout = new StoreUnavailableError('PING took longer than 50 ms', { timedOut: true });
    late.abort(lateTimeout);
    expect(lateTimeout.queued).toBe(true);
    releaseLate();
    // Served at once: its timeout may be the key's (a hung shard), and is left as it is.
    const prompt = new AbortController();
    const releasePrompt = await gate.acquire(prompt.signal);
    const promptTimeout = new StoreUnavailableError('PING took longer than 50 ms', { timedOut: true });
    prompt.abort(promptTimeout);
    expect(promptTimeout.queued).toBe(false);
    // Nor is a timeout that comes after the place was given back.
    const done = new AbortController();
    const doneTimeout = new StoreUnavailableError('PING took longer than 50 ms', { timedOut: true });
    const waitingDone = gate.acquire(done.signal);
    releasePrompt();
    (await waitingDone)();
    done.abort(doneTimeout);
    expect(doneTimeout.queued).toBe(false);
    const hold = await gate.acquire();
    // A reason other than a timeout is left as it is.
    const other = new AbortController();
    const refused = gate.acquire(other.signal).catch((error: unknown) => error);
    other.abort(new Error('closed'));
    expect(((await refused) as { queued?: boolean }).queued).toBeUndefined();
    hold();
  });
});

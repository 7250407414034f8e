import { describe, expect, it } from 'vitest';
import { LifoGate } from '../src/backend/LifoGate.js';

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
});

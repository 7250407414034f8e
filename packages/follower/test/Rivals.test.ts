import { describe, expect, it } from 'vitest';
import { bestBroadcast, type Broadcast } from '../src/broadcast.js';
import { broadcastsOf, type LeaderSlot, type LeaderWindowRead } from '../src/LeaderRead.js';
import { Rivals } from '../src/Rivals.js';

const T = 5000;
const I = 1000;
const GAP = 2 * I;

const b = (id: string, era: number, nonce: number, version: number): Broadcast => ({ id, era, nonce, version, members: [{ id, weight: 1 }] });
const goodbye = (id: string, era: number, nonce: number, version: number): Broadcast => ({ id, era, nonce, version, members: [] });

/** A read started at `at` that took no time, finding `window` (a broadcast, `empty`, or `unavailable`, by nonce). */
function read(at: number, window: readonly (Broadcast | 'empty' | 'unavailable')[]): LeaderWindowRead {
  const slots: LeaderSlot[] = window.map((w, nonce) =>
    w === 'empty' ? { nonce, state: 'empty' } : w === 'unavailable' ? { nonce, state: 'unavailable', error: new Error('down') } : { nonce, state: 'broadcast', raw: '', broadcast: w },
  );
  const broadcasts = broadcastsOf(slots);
  return { slots, broadcasts, best: bestBroadcast(broadcasts), reachable: slots.some((s) => s.state !== 'unavailable'), startedAt: at, at, scanned: true };
}

describe('Rivals: every leadership in the window, watched on its own', () => {
  it('each leadership is still T after the read that first saw its latest Version; the best one and a claim are left out on request', () => {
    const r = new Rivals(T);
    const dead = b('dead', 1, 0, 0);
    r.saw(read(0, [dead, b('live', 1, 1, 7), 'empty', 'empty']), GAP);
    r.saw(read(1000, [dead, b('live', 1, 1, 8), 'empty', 'empty']), GAP);
    // `live` moved at 1000; `dead` is still since 0.
    expect(r.seenStillAt(T, [])).toBe(1000 + T);
    expect(r.seenStillAt(T, [b('live', 1, 1, 0)])).toBe(0 + T);
    expect(r.seenStillAt(T, [b('live', 1, 1, 0), dead])).toBe(Number.NEGATIVE_INFINITY);
  });

  it('only a higher Version is progress: an older copy left at another nonce is not', () => {
    const r = new Rivals(T);
    r.saw(read(0, [b('a', 1, 0, 3), b('a', 1, 0, 5), 'empty', 'empty']), GAP);
    // The nonce of the newer copy fails: the older copy alone is no change.
    r.saw(read(1000, [b('a', 1, 0, 3), 'unavailable', 'empty', 'empty']), GAP);
    expect(r.seenStillAt(T, [])).toBe(T);
    r.saw(read(2000, [b('a', 1, 0, 3), b('a', 1, 0, 6), 'empty', 'empty']), GAP);
    expect(r.seenStillAt(T, [])).toBe(2000 + T);
  });

  it('a goodbye is still at once: its leader stopped leading', () => {
    const r = new Rivals(T);
    r.saw(read(0, [goodbye('a', 1, 0, 9), 'empty', 'empty', 'empty']), GAP);
    expect(r.seenStillAt(T, [])).toBe(0);
  });

  it('a leadership found nowhere is forgotten once still for T and its nonce and the next were read, not before (its leader may have moved there, or be alive under a claim that replaced its copy)', () => {
    const r = new Rivals(T);
    r.saw(read(0, [b('a', 1, 0, 1), 'empty', 'empty', 'empty']), GAP);
    r.saw(read(1000, ['empty', 'unavailable', 'empty', 'empty']), GAP);
    r.saw(read(2000, ['unavailable', 'empty', 'empty', 'empty']), GAP);
    // Replaced by a claim: its leader leads on until its next read finds the claim.
    r.saw(read(3000, [b('me', 2, 0, 0), 'empty', 'empty', 'empty']), GAP);
    expect(r.seenStillAt(T, [b('me', 2, 0, 0)])).toBe(T);
    r.saw(read(4000, [b('me', 2, 0, 0), 'empty', 'empty', 'empty']), GAP);
    expect(r.size).toBe(2);
    r.saw(read(5000, [b('me', 2, 0, 0), 'empty', 'empty', 'empty']), GAP);
    expect(r.size).toBe(1);
    expect(r.seenStillAt(T, [b('me', 2, 0, 0)])).toBe(Number.NEGATIVE_INFINITY);
  });

  it('after a gap in the reads that reached the store, stillness counts from the read after it, unless the confirming read finds every leadership where and as it was', () => {
    const r = new Rivals(T);
    const a = b('a', 1, 1, 4);
    r.saw(read(0, ['empty', a, 'empty', 'empty']), GAP);
    // A store outage: the reader keeps reading, and reaches nothing.
    for (const at of [1000, 2000, 3000]) r.saw(read(at, ['unavailable', 'unavailable', 'unavailable', 'unavailable']), GAP);
    r.saw(read(4000, ['empty', a, 'empty', 'empty']), GAP);
    expect(r.seenStillAt(T, [])).toBe(4000 + T);
    // A copy of the same Version at another nonce says nothing of where its leader publishes.
    const moved = read(4100, [a, 'empty', 'empty', 'empty']);
    r.sawUnchanged(moved);
    expect(r.seenStillAt(T, [])).toBe(4000 + T);
    // Found where it was, on a read of every nonce: it published nothing the store kept.
    r.sawUnchanged(read(4100, ['empty', a, 'empty', 'empty']));
    expect(r.seenStillAt(T, [])).toBe(T);
  });

  it('watches at most 32 leaderships: past it, the one still the longest is forgotten', () => {
    const r = new Rivals(T);
    for (let era = 1; era <= 40; era++) r.saw(read(era * 100, [b(`n${era}`, era, 0, 1), 'unavailable', 'unavailable', 'unavailable']), GAP);
    expect(r.size).toBe(32);
    // The latest ones stay: the last seen moving is the one watched longest from now on.
    expect(r.seenStillAt(T, [])).toBe(4000 + T);
  });
});

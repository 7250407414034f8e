import { describe, expect, it } from 'vitest';
import { type Broadcast } from '../src/broadcast.js';
import { Staleness } from '../src/Staleness.js';

const T = 5000;
const I = 1000;
const b = (version: number, more: Partial<Broadcast> = {}): Broadcast => ({
  era: 2,
  nonce: 0,
  version,
  id: 'n1',
  members: [{ id: 'n1', weight: 1 }],
  ...more,
});

describe('Staleness', () => {
  it('a version unchanged for T makes the follower stale, a new version resets it', () => {
    const s = new Staleness(0);
    expect(s.observe(b(1), 100)).toBe(true);
    expect(s.observe(b(1), 2000)).toBe(false);
    expect(s.isStale(100 + T - 1, T)).toBe(false);
    expect(s.isStale(100 + T, T)).toBe(true);

    expect(s.observe(b(2), 5500)).toBe(true);
    expect(s.isStale(5500 + T - 1, T)).toBe(false);
    expect(s.staleAt(T)).toBe(5500 + T);
  });

  it('counts from the completion of the read that first saw the change', () => {
    const s = new Staleness(0);
    s.observe(b(1), 0);
    // The read that saw version 2 started at 900 but completed at 1400: stillness counts from 1400.
    s.sawRead(900, 1400, 2 * I);
    s.observe(b(2), 1400);
    expect(s.isStale(900 + T, T)).toBe(false);
    expect(s.isStale(1400 + T, T)).toBe(true);
  });

  it('nothing seen at all goes stale T after the start', () => {
    const s = new Staleness(1000);
    expect(s.tracked).toBeUndefined();
    expect(s.observe(undefined, 3000)).toBe(false);
    expect(s.isStale(1000 + T - 1, T)).toBe(false);
    expect(s.isStale(1000 + T, T)).toBe(true);
  });

  it('another leadership is a change even at the same version; losing sight of the broadcast is a change too', () => {
    const s = new Staleness(0);
    s.observe(b(4), 0);
    expect(s.observe(b(4, { era: 3 }), 10)).toBe(true);
    expect(s.observe(b(4, { era: 3, nonce: 1 }), 20)).toBe(true);
    expect(s.observe(b(4, { era: 3, nonce: 1, id: 'n2' }), 30)).toBe(true);
    expect(s.tracked).toEqual(b(4, { era: 3, nonce: 1, id: 'n2' }));
    expect(s.observe(undefined, 40)).toBe(true);
    expect(s.tracked).toBeUndefined();
    expect(s.staleAt(T)).toBe(40 + T);
  });

  it('the same leadership at the same version is no change, whatever its member list', () => {
    const s = new Staleness(0);
    s.observe(b(4), 0);
    expect(s.observe(b(4, { members: [] }), 10)).toBe(false);
    expect(s.staleAt(T)).toBe(T);
  });

  it('a goodbye is stale at once: its leader has already stopped leading', () => {
    const s = new Staleness(0);
    s.observe(b(7, { members: [] }), 300);
    expect(s.isStale(300, T)).toBe(true);
    expect(s.staleAt(T)).toBe(300);
  });

  it('read-gap rule: after reads more than the gap apart, stillness restarts at the later read', () => {
    const s = new Staleness(0);
    s.observe(b(1), 50);
    s.sawRead(0, 50, 2 * I);
    s.sawRead(1000, 1050, 2 * I);
    // The process was paused from 1000 to 9000: what changed meanwhile went unseen.
    s.sawRead(9000, 9040, 2 * I);
    expect(s.isStale(9040 + T - 1, T)).toBe(false);
    expect(s.isStale(9040 + T, T)).toBe(true);
    expect(s.staleAt(T)).toBe(9040 + T);
  });

  it('read-gap rule: reads at most the gap apart keep the stillness counted so far', () => {
    const s = new Staleness(0);
    s.observe(b(1), 50);
    for (let at = 0; at <= 6000; at += 2 * I) s.sawRead(at, at + 40, 2 * I);
    expect(s.isStale(50 + T, T)).toBe(true);
  });

  it('slow-read rule: a read that took longer than the gap counts what it saw from its completion (a busy reader does not stand on the read that saw progress)', () => {
    const s = new Staleness(0);
    s.sawRead(0, 10, 2 * I);
    s.observe(b(1), 0);
    // A read that started at 1000 and, its reply stuck behind a busy event loop, completed at 7000.
    s.sawRead(1000, 7000, 2 * I);
    expect(s.observe(b(2), 1000)).toBe(true);
    expect(s.isStale(7000, T)).toBe(false);
    expect(s.staleAt(T)).toBe(7000 + T);
    expect(s.seenStillAt(T)).toBe(7000 + T);
    // The next read started more than the gap after the slow one did (the read-gap rule); the one after is timed from its start again.
    s.sawRead(8000, 8050, 2 * I);
    s.observe(b(3), 8000);
    expect(s.staleAt(T)).toBe(8050 + T);
    s.sawRead(9000, 9050, 2 * I);
    s.observe(b(4), 9000);
    expect(s.staleAt(T)).toBe(9000 + T);
  });

  it('the first read never counts as a gap', () => {
    const s = new Staleness(0);
    s.observe(b(1), 0);
    s.sawRead(60_000, 60_010, 2 * I);
    expect(s.isStale(T, T)).toBe(true);
  });

  it('a gap never moves the stillness clock back to an earlier change', () => {
    const s = new Staleness(0);
    s.sawRead(0, 10, 2 * I);
    s.observe(b(1), 8000);
    s.sawRead(7000, 7100, 2 * I);
    expect(s.staleAt(T)).toBe(8000 + T);
  });

  it('a clone tracks on its own from where the original was', () => {
    const s = new Staleness(0);
    s.observe(b(1), 100);
    s.sawRead(0, 100, 2 * I);
    const copy = s.clone();
    expect(copy.tracked).toEqual(b(1));
    expect(copy.staleAt(T)).toBe(100 + T);
    copy.observe(b(2), 3000);
    expect(copy.staleAt(T)).toBe(3000 + T);
    expect(s.staleAt(T)).toBe(100 + T);
    // The clone keeps the read history: a gap since the original's last read counts.
    copy.sawRead(9000, 9100, 2 * I);
    expect(copy.staleAt(T)).toBe(9100 + T);
  });
  it('reads that reached nothing count as looking for staleness, but not as seeing stillness: after an outage longer than the gap, stillness is seen only from the first read that reached the store', () => {
    const s = new Staleness(0);
    s.observe(b(1), 100);
    for (let t = 0; t <= 1000; t += I) s.sawRead(t, t + 10, 2 * I);
    for (let t = 1100; t <= 9000; t += I) s.sawRead(t, t + 10, 2 * I, false);
    expect(s.isStale(9010, T)).toBe(true); // a follower that read nothing for T stands (blind)
    expect(s.isSeenStill(9010, T)).toBe(true); // nothing yet says it was not looking
    s.sawRead(9100, 9110, 2 * I);
    expect(s.isStale(9110, T)).toBe(true);
    expect(s.isSeenStill(9110, T)).toBe(false);
    expect(s.seenStillAt(T)).toBe(9110 + T);
    // The clone a candidate takes keeps both clocks.
    expect(s.clone().seenStillAt(T)).toBe(9110 + T);
  });

  /** Reads that reach the store until 1000, then an outage until 9000. */
  const outage = (): Staleness => {
    const s = new Staleness(0);
    s.observe(b(1), 100);
    for (let t = 0; t <= 1000; t += I) s.sawRead(t, t + 10, 2 * I);
    for (let t = 1100; t <= 9000; t += I) s.sawRead(t, t + 10, 2 * I, false);
    return s;
  };

  it('outage bridge: the store showing the broadcast unchanged after an outage counts the stillness from before it again', () => {
    const s = outage();
    s.sawRead(9100, 9110, 2 * I);
    s.sawUnchanged();
    expect(s.isSeenStill(9110, T)).toBe(true);
    expect(s.seenStillAt(T)).toBe(100 + T);
  });

  it('outage bridge: a clone (a candidate) carries the gap, and bridges it later', () => {
    const s = outage();
    expect(s.acrossGap).toBe(false);
    s.sawRead(9100, 9110, 2 * I);
    expect(s.isSeenStill(9110, T)).toBe(false);
    // What a node that stands now stood on: stillness seen across an outage (it stands as blind).
    expect(s.acrossGap).toBe(true);
    const candidate = s.clone();
    expect(candidate.acrossGap).toBe(true);
    candidate.sawRead(9200, 9210, 2 * I);
    candidate.sawUnchanged();
    expect(candidate.isSeenStill(9210, T)).toBe(true);
  });

  it('outage bridge: a change seen after the outage ends it (the leader published), and so does not looking at all (a pause)', () => {
    const changed = outage();
    changed.sawRead(9100, 9110, 2 * I);
    changed.observe(b(2), 9100);
    changed.sawRead(9200, 9210, 2 * I);
    expect(changed.acrossGap).toBe(false);
    changed.sawUnchanged();
    expect(changed.seenStillAt(T)).toBe(9100 + T);
    const paused = outage();
    paused.sawRead(9100, 9110, 2 * I);
    paused.sawRead(12_000, 12_010, 2 * I);
    paused.sawUnchanged();
    expect(paused.seenStillAt(T)).toBe(12_010 + T);
  });
});

import { CompoundKey, MemoryKV, silentLogger } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { PongRound } from '../src/PongRound.js';
import { PongWorker } from '../src/PongWorker.js';

const I = 100;
const T = 500;

function setup() {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1, logCapacity: 100_000 });
  const kv = faults.view(store, 'leader');
  const round = new PongRound({ clock, periodMs: I, logger: silentLogger });
  const events: string[] = [];
  const rtts: (number | undefined)[] = [];
  const worker = (id: string) =>
    new PongWorker({
      kv,
      key: new CompoundKey(`id/${id}`, { window: 4 }),
      clock,
      logger: silentLogger,
      intervalMs: I,
      quietMs: 1.5 * I,
      opTimeoutMs: I / 2,
      round,
      onPing: (rtt) => {
        events.push(`ping ${id}`);
        rtts.push(rtt);
      },
      onLeave: () => events.push(`leave ${id}`),
    });
  /** A follower that PINGs by exchange at `nonce`, half an interval out of phase with the worker. */
  const follower = (id: string, nonce = 0) => {
    let seq = 0;
    return {
      ping: () => store.exchange(`id/${id} ${nonce}`, `PING ${++seq} 7`),
      moveTo(n: number) {
        nonce = n;
      },
    };
  };
  const ops = (op: string) => faults.operations().filter((o) => o.op === op);
  return { clock, store, faults, round, worker, follower, events, rtts, ops };
}

describe('PongWorker', () => {
  it('answers a live follower with one exchange per interval and reports each fresh PING with its round trip', async () => {
    const { clock, worker, follower, events, rtts, ops, store } = setup();
    const f = follower('f');
    await f.ping();
    const w = worker('f');
    w.start();
    await clock.advance(I / 2);
    for (let i = 0; i < 10; i++) {
      await f.ping();
      await clock.advance(I);
    }
    // The first exchange only learns what was there: news needs a value seen before.
    expect(events).toHaveLength(10);
    expect(rtts.every((r) => r === 7)).toBe(true);
    const before = ops('exchange').length + ops('get').length;
    await f.ping();
    await clock.advance(I);
    expect(ops('exchange').length + ops('get').length - before).toBe(1);
    expect(await store.get('id/f 0')).toMatch(/^PONG \d+$/);
    await w.stop();
  });

  it('never counts what a dead follower left behind: an old PING, a LEAVE (an earlier run of its id left it at another nonce)', async () => {
    const { clock, worker, events, store, ops } = setup();
    await store.set('id/dead 0', 'PING 41 3');
    await store.set('id/dead 1', 'LEAVE');
    const w = worker('dead');
    w.start();
    await clock.advance(10 * I);
    // The situation: the worker, finding its follower quiet, read the old LEAVE at the other nonce.
    expect(ops('getRange').some((o) => o.key === 'id/dead 1')).toBe(true);
    expect(events).toEqual([]);
    await w.stop();
  });

  it('a LEAVE that replaced its PONG where the follower PINGs counts as leaving', async () => {
    const { clock, worker, follower, events, store } = setup();
    const f = follower('f');
    const w = worker('f');
    w.start();
    await clock.advance(I / 2);
    await f.ping();
    await clock.advance(I);
    await store.set('id/f 0', 'LEAVE');
    await clock.advance(I);
    expect(events.at(-1)).toBe('leave f');
    await w.stop();
  });

  it('a LEAVE at another nonce than where the follower PINGs does not count, even when the worker reads it', async () => {
    const { clock, worker, follower, events, store, ops } = setup();
    const f = follower('f');
    await store.set('id/f 2', 'PING 1');
    const w = worker('f');
    w.start();
    // Quiet at first: the worker reads the other nonces and learns what is there.
    await clock.advance(I / 2 + 2 * I);
    for (let i = 0; i < 3; i++) {
      await f.ping();
      await clock.advance(I);
    }
    // An earlier run's LEAVE lands at nonce 2 while the follower, alive at nonce 0, is quiet for
    // two intervals (a pause shorter than T): the worker looks elsewhere and reads the LEAVE.
    await store.set('id/f 2', 'LEAVE');
    const readsBefore = ops('getRange').filter((o) => o.key === 'id/f 2').length;
    await clock.advance(2 * I);
    expect(ops('getRange').filter((o) => o.key === 'id/f 2').length).toBeGreaterThan(readsBefore);
    for (let i = 0; i < 3; i++) {
      await f.ping();
      await clock.advance(I);
    }
    expect(events).not.toContain('leave f');
    expect(events.filter((e) => e === 'ping f').length).toBeGreaterThanOrEqual(5);
    await w.stop();
  });

  it('finds a follower that moved its id key to another nonce and PONGs it there', async () => {
    const { clock, worker, follower, events, faults, store } = setup();
    const f = follower('f');
    const w = worker('f');
    w.start();
    await clock.advance(I / 2);
    for (let i = 0; i < 3; i++) {
      await f.ping();
      await clock.advance(I);
    }
    faults.keyUnavailable('id/f 0');
    f.moveTo(1);
    const pingsBefore = events.length;
    for (let i = 0; i < 6; i++) {
      await f.ping();
      await clock.advance(I);
    }
    // Found within about three intervals of the move, well within T.
    expect(events.length - pingsBefore).toBeGreaterThanOrEqual(3);
    expect(await store.get('id/f 1')).toMatch(/^PONG \d+$/);
    await w.stop();
  });

  it('workers on one round issue their commands in eight bursts over a quarter of the beat, from another place each beat, and a stalled key delays no other worker', async () => {
    const { clock, worker, faults, ops } = setup();
    const ids = [...Array.from({ length: 16 }, (_, i) => `w${String(i).padStart(2, '0')}`), 'slow'];
    const workers = ids.map((id) => worker(id));
    for (const w of workers) w.start();
    await clock.advance(2 * I);
    faults.latency({ keys: { prefix: 'id/slow' }, minMs: 5 * I, maxMs: 5 * I });
    const beats = [clock.now(), clock.now() + I, clock.now() + 2 * I];
    await clock.advance(3 * I - 1);
    const fast = ops('exchange').filter((o) => o.at >= beats[0]! && !o.key!.startsWith('id/slow'));
    // Three beats, sixteen workers each, answered at once.
    expect(fast).toHaveLength(48);
    expect(fast.every((o) => o.doneAt === o.at)).toBe(true);
    for (const beat of beats) {
      const round = fast.filter((o) => o.at >= beat && o.at < beat + I);
      const instants = [...new Set(round.map((o) => o.at))];
      // Bursts of at most ⌈17/8⌉ = 3 workers, the last started 7/32 of the period after the beat.
      expect(instants.length).toBeGreaterThanOrEqual(6);
      expect(Math.max(...instants) - beat).toBeLessThanOrEqual((7 / 32) * I);
      for (const at of instants) expect(round.filter((o) => o.at === at).length).toBeLessThanOrEqual(3);
    }
    // Each beat starts from another worker: what a busy client fails is not the same followers.
    const firsts = beats.map((beat) => fast.find((o) => o.at === beat)?.key);
    expect(new Set(firsts).size).toBe(3);
    await Promise.all(workers.map((w) => w.stop()));
  });

  it('a round whose period is given as a function asks it at each beat: the leader’s round backs off on a slow store, and speeds up again', async () => {
    const clock = new VirtualClock();
    let periodMs = I;
    const round = new PongRound({ clock, periodMs: () => periodMs, logger: silentLogger });
    const beats: number[] = [];
    const member = { step: async () => void beats.push(clock.now()) };
    round.add(member);
    await clock.advance(2 * I);
    periodMs = 2 * I;
    await clock.advance(6 * I);
    periodMs = I;
    await clock.advance(2 * I);
    // At once, then I, I; the beat due at 3I was already set: then 2I apart; then I apart again.
    expect(beats).toEqual([0, I, 2 * I, 3 * I, 5 * I, 7 * I, 9 * I, 10 * I]);
    await round.remove(member);
  });
});

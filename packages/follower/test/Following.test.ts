import { CompoundKey, MemoryKV, silentLogger, StoreUnavailableError } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { formatBroadcast, type Broadcast } from '../src/broadcast.js';
import type { FollowerTiming } from '../src/FollowerTiming.js';
import { Following } from '../src/Following.js';
import { NOT_READ, type LeaderWindowRead } from '../src/LeaderRead.js';
import { LeaderWindow } from '../src/LeaderWindow.js';

const I = 100;
const T = 500;
/** τ, the operation deadline. */
const TAU = I / 2;
/** The wait after a nonce newly fails: the leader there moves on within I, plus its read and compare-and-set (2τ). */
const WAIT = I + 2 * TAU;
/** Every read's store operations take this long (so that a read's start and its completion differ). */
const LATENCY = 10;

const timing: FollowerTiming = {
  timeoutMs: T,
  stillMs: 1.5 * I,
  scanEveryMs: 5 * T,
  stillPollMs: I / 2,
  stillScanMs: (3 * I) / 4,
  readGapMs: 2 * I,
  slowReadMs: Math.max(2 * I, T / 2),
  claimGraceMs: 2 * I,
  pongTimeoutMs: T + 2 * I,
  listStepBudgetMs: TAU / 2,
};

const leadership: Broadcast = { era: 1, nonce: 0, version: 1, id: 'leader', members: [{ id: 'leader', weight: 1 }, { id: 'me', weight: 1 }] };

/**
 * A follower of `leadership` (published at nonce 0 of a window of 4), on a virtual clock, whose
 * store operations each take {@link LATENCY} ms and fail as `faults` says. It PINGs nobody: only
 * stillness can make it stand.
 */
async function follower() {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1 });
  faults.latency({ minMs: LATENCY, maxMs: LATENCY });
  const window = new LeaderWindow({
    kv: faults.view(store, 'me'),
    key: new CompoundKey('leader', { window: 4 }),
    clock,
    logger: silentLogger,
    opTimeoutMs: TAU,
    stillMs: timing.stillMs,
    scanEveryMs: timing.scanEveryMs,
    stillScanMs: timing.stillScanMs,
    listStepBudgetMs: timing.listStepBudgetMs,
  });
  const following = new Following(window, clock, timing, { count: () => undefined }, TAU);
  await store.set('leader 0', formatBroadcast(leadership));

  /** Starts a poll now; `done()` lets the clock run until it completes. */
  const startPoll = () => {
    let read: LeaderWindowRead | undefined;
    void following.read(undefined, 'poll').then((r) => {
      following.absorb(r, 'follower');
      read = r;
    });
    return {
      get completed() {
        return read !== undefined;
      },
      async done(): Promise<LeaderWindowRead> {
        await clock.advanceUntil(() => read !== undefined, 10 * I);
        return read!;
      },
    };
  };
  /** Polls at `at` (virtual ms) and lets it complete. */
  const pollAt = async (at: number): Promise<LeaderWindowRead> => {
    await clock.advanceTo(at);
    return startPoll().done();
  };
  const standReason = () => following.standReason(clock.now(), 0, following.bestSeen, false);
  /** How the poll went at nonce 1, the next nonce after the one followed. */
  const nonce1 = (read: LeaderWindowRead) => {
    const slot = read.slots.find((s) => s.nonce === 1)!;
    return slot.state === 'unavailable' ? (slot.error === NOT_READ ? 'not read' : 'failed') : slot.state;
  };
  return { clock, store, faults, following, startPoll, pollAt, standReason, nonce1 };
}

describe('Following: a nonce newly failed makes stillness no evidence for a while (#lookAgainAfter)', () => {
  it('a follower whose next nonce newly fails does not stand on `stale` until a read started I + 2τ after that failure has completed, and then does, the Version unchanged', async () => {
    const { clock, faults, following, startPoll, pollAt, standReason, nonce1 } = await follower();
    // The leader published once, at 0, and was never heard from again.
    for (const at of [0, 100, 200, 300]) await pollAt(at);
    expect(following.bestSeen).toEqual(leadership);

    // Nonce 1's shard goes down: the leader may have moved there (a claim, a new leader's first
    // copy) just before, unseen by this follower.
    faults.keyUnavailable(['leader 1']);
    const failed = await pollAt(400);
    expect(nonce1(failed)).toBe('failed');
    const waitEnds = failed.at + WAIT;

    // Stillness for T (from the first read at 0): without the rule this follower would stand now.
    const afterT = await pollAt(500);
    expect(afterT.startedAt).toBeLessThan(waitEnds);
    expect(following.staleness.isStale(clock.now(), T)).toBe(true);
    expect(standReason()).toBeUndefined();
    expect(following.standAt(0)).toBe(waitEnds);

    // A read started just before the wait ended, completed after it: still no evidence.
    await clock.advanceTo(waitEnds - 1);
    const early = startPoll();
    const earlyRead = await early.done();
    expect(earlyRead.at).toBeGreaterThanOrEqual(waitEnds);
    expect(nonce1(earlyRead)).toBe('failed');
    expect(standReason()).toBeUndefined();

    // A read started after the wait: while it is in flight, nothing yet...
    await clock.advanceTo(700);
    const late = startPoll();
    await clock.advance(LATENCY / 2);
    expect(late.completed).toBe(false);
    expect(standReason()).toBeUndefined();
    // ...once it completes, with the Version still unchanged, the follower stands.
    const lateRead = await late.done();
    expect(lateRead.startedAt).toBeGreaterThanOrEqual(waitEnds);
    expect(following.bestSeen).toEqual(leadership);
    expect(standReason()).toBe('stale');
  });

  it('a nonce that stays failed costs the wait once; failing again after a good read costs it again', async () => {
    const { clock, store, faults, following, pollAt, standReason, nonce1 } = await follower();
    for (const at of [0, 100, 200, 300]) await pollAt(at);
    const shard = faults.keyUnavailable(['leader 1']);
    const failed = await pollAt(400);
    expect(nonce1(failed)).toBe('failed');
    await pollAt(500);
    expect(standReason()).toBeUndefined();
    await pollAt(700);
    expect(standReason()).toBe('stale');

    // The leader was alive after all: it publishes Version 2 at 800, then dies; nonce 1 stays down.
    await clock.advanceTo(800);
    const v2: Broadcast = { ...leadership, version: 2 };
    await store.set('leader 0', formatBroadcast(v2));
    let stillFrom: number | undefined;
    let lastRead: LeaderWindowRead | undefined;
    const stillFailing: string[] = [];
    for (let at = 800; at <= 1400; at += I) {
      lastRead = await pollAt(at);
      stillFrom ??= following.bestSeen?.version === 2 ? lastRead.startedAt : undefined;
      stillFailing.push(nonce1(lastRead));
      if (lastRead.at < stillFrom! + T) expect(standReason(), `at ${clock.now()}`).toBeUndefined();
    }
    expect(stillFrom).toBe(800);
    // Nonce 1 was tried again and failed again, and no new wait came of it: the follower stands
    // T after Version 2, not T + I + 2τ.
    expect(stillFailing).toContain('failed');
    expect(following.standAt(0)).toBe(stillFrom! + T);
    expect(standReason()).toBe('stale');

    // The shard comes back, is read, and fails again: a new wait.
    shard.heal();
    expect(nonce1(await pollAt(1500))).toBe('empty');
    faults.keyUnavailable(['leader 1']);
    const again = await pollAt(1600);
    expect(nonce1(again)).toBe('failed');
    expect(following.staleness.isStale(clock.now(), T)).toBe(true);
    expect(standReason()).toBeUndefined();
    expect(following.standAt(0)).toBe(again.at + WAIT);
    await pollAt(1700);
    expect(standReason()).toBeUndefined();
    await pollAt(again.at + WAIT);
    expect(standReason()).toBe('stale');
  });
});

describe('Following: a claim the store lost (claimLost)', () => {
  const claim: Broadcast = { era: 2, nonce: 0, version: 0, id: 'c', members: [{ id: 'c', weight: 1 }] };
  const worse: Broadcast = { era: 1, nonce: 1, version: 7, id: 'w', members: [{ id: 'w', weight: 1 }, { id: 'me', weight: 1 }] };

  /**
   * A follower that knows `claim` (at nonce 0) and `worse` (at nonce 1), read on a store that
   * answers at once; `failWholeReads(true)` fails every `get` from then on (`getRange` still works).
   */
  async function followerOfClaim() {
    const clock = new VirtualClock();
    const store = new MemoryKV({ clock });
    let wholeReadsFail = false;
    const kv = new Proxy(store, {
      get(target, name) {
        if (name === 'get' && wholeReadsFail) return () => Promise.reject(new StoreUnavailableError('get failed'));
        const value: unknown = Reflect.get(target, name);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const failWholeReads = (fail: boolean) => (wholeReadsFail = fail);
    const window = new LeaderWindow({ kv, key: new CompoundKey('leader', { window: 4 }), clock, logger: silentLogger, opTimeoutMs: TAU, stillMs: timing.stillMs, scanEveryMs: timing.scanEveryMs, stillScanMs: timing.stillScanMs, listStepBudgetMs: timing.listStepBudgetMs });
    const following = new Following(window, clock, timing, { count: () => undefined }, TAU);
    await store.set('leader 0', formatBroadcast(claim));
    await store.set('leader 1', formatBroadcast(worse));
    const read = async (mode: 'read' | 'poll', reported?: Broadcast) => following.absorb(await following.read(undefined, mode), 'follower', reported);
    await read('read');
    expect(following.bestSeen).toEqual(claim);
    return { store, following, read, failWholeReads };
  }

  it('a read of every nonce that finds the claim nowhere moves the follower on to the best leadership it shows, even a worse one', async () => {
    const { store, following, read } = await followerOfClaim();
    await store.delete('leader 0');
    expect(await read('read')).toEqual(worse);
    expect(following.bestSeen).toEqual(worse);
  });

  it('not to a leadership worse than the one the node reports: a key rolled back for a while brings the claim back', async () => {
    const { store, following, read } = await followerOfClaim();
    await store.delete('leader 0');
    const reported: Broadcast = { era: 2, nonce: 1, version: 3, id: 'r', members: [] };
    expect(await read('read', reported)).toBeUndefined();
    expect(following.bestSeen).toEqual(claim);
  });

  it('a poll that does not find the claim makes the next read one of every nonce; one that finds it does not', async () => {
    const { store, following, read } = await followerOfClaim();
    await read('poll');
    expect(following.mustReadEveryNonce).toBe(false);
    await store.set('leader 0', formatBroadcast({ ...worse, nonce: 0, id: 'v' }));
    await read('poll');
    expect(following.bestSeen).toEqual(claim);
    expect(following.mustReadEveryNonce).toBe(true);
  });

  it('a poll that sees the claim confirmed by its header only (its list unread) asks no read of every nonce', async () => {
    const { store, following, read, failWholeReads } = await followerOfClaim();
    // The candidate's first publication: the poll reads its header, and the read of its list fails.
    await store.set('leader 0', formatBroadcast({ ...claim, version: 1000, members: [{ id: 'c', weight: 1 }, ...Array.from({ length: 50 }, (_, i) => ({ id: `member-${i}`, weight: 1 }))] }));
    failWholeReads(true);
    const seen = await following.read(undefined, 'poll');
    expect(seen.moving).toMatchObject({ era: 2, nonce: 0, id: 'c', version: 1000 });
    following.absorb(seen, 'follower');
    expect(following.bestSeen).toEqual(claim);
    expect(following.mustReadEveryNonce).toBe(false);
  });
});

import { deriveTiming, resolveDurations } from '../src/timing.js';
import { describe, expect, it } from 'vitest';
import { parseBroadcast, type Broadcast } from '@roster/follower';
import { Rivals, Staleness, type LeaderWindowRead } from '@roster/follower/internal';
import { KeyUnavailableError, StoreUnavailableError } from '@roster/kv-adapter';
import { decide, writeClaim, type Candidacy } from '../src/Candidacy.js';
import { WindowFixture, broadcast } from './support/window.js';

const timing = deriveTiming(resolveDurations({ intervalMs: 100, timeoutMs: 500, settleMs: 50 }));

/** A candidacy begun at `now` following `basis`, whose other broadcasts were last seen changing at `changedAt`. */
function unclaimed(basis: Broadcast | undefined, changedAt: number): Candidacy {
  const others = new Staleness(changedAt);
  if (basis) others.observe(basis, changedAt);
  return { phase: 'unclaimed', basis, others, rivals: new Rivals(timing.timeoutMs) };
}

function claimed(basis: Broadcast | undefined, changedAt: number, claim: Broadcast, raw: string, claimedAt: number): Candidacy {
  return { ...unclaimed(basis, changedAt), phase: 'claimed', claim, raw, claimedAt, settle: undefined };
}

describe('Candidacy: the candidate’s rule', () => {
  it('an unclaimed candidate claims while nothing better than the leadership it followed is seen', async () => {
    const f = new WindowFixture();
    const old = broadcast('old', 1);
    await f.put(old);
    expect(decide(unclaimed(old, 0), await f.read(), 600, timing)).toEqual({ action: 'claim' });
  });

  it('an unclaimed candidate follows a leadership better than the one it followed', async () => {
    const f = new WindowFixture();
    await f.put(broadcast('newer', 2, 1));
    expect(decide(unclaimed(broadcast('old', 1), 0), await f.read(), 600, timing)).toEqual({ action: 'follow', reason: 'better-leader-seen' });
  });

  it('an unclaimed candidate that stood blind claims only on a read of every nonce, for up to blindClaimWaitMs after its first read that reached the store', async () => {
    const f = new WindowFixture();
    const old = broadcast('old', 1);
    await f.put(old);
    const c: Candidacy = { ...unclaimed(old, 0), blind: true };
    await f.clock.advance(1000);
    // A store just back from an outage answers some reads too late: the nonce not read may hold
    // the old leader, publishing again, or another candidate's claim.
    const read = await f.read();
    const missed: LeaderWindowRead = { ...read, slots: read.slots.map((s) => (s.nonce === 2 ? { nonce: 2, state: 'unavailable', error: new StoreUnavailableError('took longer than 50 ms', { timedOut: true }) } : s)) };
    expect(decide(c, missed, 1000, timing)).toEqual({ action: 'wait' });
    expect(decide(c, missed, 1000 + timing.blindClaimWaitMs - 1, timing)).toEqual({ action: 'wait' });
    expect(decide(c, read, 1000 + timing.blindClaimWaitMs - 1, timing)).toEqual({ action: 'claim' });
    // Never read in full (a nonce that stays unavailable): it claims all the same, later.
    expect(decide(c, missed, 1000 + timing.blindClaimWaitMs, timing)).toEqual({ action: 'claim' });
    // One that did not stand blind claims on what it could read, as before.
    expect(decide(unclaimed(old, 0), missed, 1000, timing)).toEqual({ action: 'claim' });
  });

  it('a claimed candidate waits out the settle time before it may confirm', async () => {
    const f = new WindowFixture();
    const claim = broadcast('me', 2, 1, 0);
    const raw = await f.put(claim);
    expect(decide(claimed(undefined, -1000, claim, raw, 600), await f.read(), 600 + timing.settleMs - 1, timing)).toEqual({ action: 'wait' });
  });

  it('leads once its claim is the best and every other broadcast stood still for T', async () => {
    const f = new WindowFixture();
    const old = broadcast('old', 1);
    const claim = broadcast('me', 2, 1, 0);
    await f.put(old);
    const raw = await f.put(claim);
    const c = claimed(old, 0, claim, raw, 400);
    expect(decide(c, await f.read(), 499, timing)).toEqual({ action: 'wait', at: 500 });
    expect(decide(c, await f.read(), 500, timing)).toEqual({ action: 'lead' });
  });

  it('does not lead while another broadcast keeps changing: each change restarts the wait for stillness', async () => {
    const f = new WindowFixture();
    const claim = broadcast('me', 2, 1, 0);
    const raw = await f.put(claim);
    const c = claimed(broadcast('old', 1, 0, 1), 0, claim, raw, 400);
    await f.put(broadcast('old', 1, 0, 2));
    await f.clock.advance(450);
    const read = await f.read();
    expect(decide(c, read, 500, timing)).toEqual({ action: 'wait', at: read.at + timing.timeoutMs });
    expect(decide(c, read, read.at + timing.timeoutMs, timing)).toEqual({ action: 'lead' });
  });

  it('does not lead while a worse leadership in the window keeps publishing: its leader, elected while the best was hidden, is alive until it sees the claim', async () => {
    const f = new WindowFixture();
    // The best leadership was a claim at nonce 0, hidden (its nonce unavailable) while `live` was
    // elected at nonce 1; the candidate replaced the dead claim with its own.
    const dead = broadcast('dead', 1, 0, 0);
    const claim = broadcast('me', 2, 0, 0);
    const raw = await f.put(claim);
    const c = claimed(dead, -1000, claim, raw, 0);
    // Rivals learns from every read of the node (one per interval); here, the reads the test makes.
    const see = async (): Promise<LeaderWindowRead> => {
      const read = await f.read();
      c.rivals.saw(read, 2 * 100);
      return read;
    };
    await f.put(broadcast('live', 1, 1, 7));
    await see();
    await f.clock.advance(100);
    await f.put(broadcast('live', 1, 1, 8));
    // The dead claim is still, but `live` published at 100 ms: the candidate waits for T of it.
    expect(decide(c, await see(), 100, timing)).toEqual({ action: 'wait', at: 100 + timing.timeoutMs });
    for (let t = 200; t < 600; t += 100) {
      await f.clock.advance(100);
      expect(decide(c, await see(), t, timing)).toEqual({ action: 'wait', at: 100 + timing.timeoutMs });
    }
    // Dethroned by the claim, it stopped: still for T, the candidate leads.
    await f.clock.advance(100);
    expect(decide(c, await see(), 600, timing)).toEqual({ action: 'lead' });
  });

  it('does not lead on a read that could not read a nonce below its claim for a store failure: a claim of its era may be there', async () => {
    const f = new WindowFixture();
    const old = broadcast('old', 1);
    const claim = broadcast('me', 2, 2, 0);
    await f.put(old);
    const raw = await f.put(claim);
    const c = claimed(old, 0, claim, raw, 400);
    // What a read sees while the store fails at random on the leader key (its clients reconnecting):
    // a rival's claim `2 1 0 rival rival` at nonce 1 would rank first.
    const unread = (read: LeaderWindowRead, nonce: number, error: unknown): LeaderWindowRead => ({
      ...read,
      slots: read.slots.map((s) => (s.nonce === nonce ? { nonce, state: 'unavailable', error } : s)),
    });
    const missed = unread(await f.read(), 1, new StoreUnavailableError('connection is closed'));
    expect(decide(c, missed, 500, timing)).toEqual({ action: 'wait', at: 500 + timing.settleMs });
    // A nonce above the claim does not matter; one known unavailable (its shard down, or its read
    // timed out on a frozen shard) holds nothing new.
    expect(decide(c, unread(await f.read(), 3, new StoreUnavailableError('connection is closed')), 500, timing)).toEqual({ action: 'lead' });
    expect(decide(c, unread(await f.read(), 1, new KeyUnavailableError('leader 1')), 500, timing)).toEqual({ action: 'lead' });
    expect(decide(c, unread(await f.read(), 0, new StoreUnavailableError('took longer than 50 ms', { timedOut: true })), 500, timing)).toEqual({ action: 'lead' });
    // Never read in full below its claim: it gives up after T + I, like any unconfirmed claim.
    expect(decide(c, missed, 400 + timing.claimTimeoutMs + 1, timing)).toEqual({ action: 'follow', reason: 'claim-unconfirmed' });
  });

  it('follows a better broadcast that appears after its claim', async () => {
    const f = new WindowFixture();
    const claim = broadcast('me', 2, 1, 0);
    const raw = await f.put(claim);
    await f.put(broadcast('rival', 2, 0, 0));
    expect(decide(claimed(undefined, 0, claim, raw, 0), await f.read(), 600, timing)).toEqual({ action: 'follow', reason: 'better-leader-seen' });
  });

  it('gives up when its claim is gone from the window', async () => {
    const f = new WindowFixture();
    const claim = broadcast('me', 2, 1, 0);
    expect(decide(claimed(undefined, 0, claim, 'x', 0), await f.read(), 600, timing)).toEqual({ action: 'follow', reason: 'claim-lost' });
  });

  it('gives up when its claim is not confirmed within T + I', async () => {
    const f = new WindowFixture();
    const claim = broadcast('me', 2, 1, 0);
    const raw = await f.put(claim);
    const c = claimed(broadcast('old', 1), 0, claim, raw, 0);
    c.others.observe(broadcast('old', 1, 0, 9), 550);
    expect(decide(c, await f.read(), 601, timing)).toEqual({ action: 'follow', reason: 'claim-unconfirmed' });
  });
});

describe('writeClaim', () => {
  it('claims at the lowest nonce by compare-and-set against what the read saw there', async () => {
    const f = new WindowFixture();
    await f.put(broadcast('old', 1, 0, 3));
    const out = await writeClaim({
      kv: f.kv,
      clock: f.clock,
      opTimeoutMs: 50,
      key: f.keys.leader(),
      read: await f.read(),
      claim: { id: 'me', era: 2, version: 0, members: [{ id: 'me', weight: 1 }] },
      current: () => true,
    });
    expect(out.outcome).toBe('claimed');
    const stored = await f.kv.get(f.keys.leader().at(0));
    expect(stored && parseBroadcast(stored)).toMatchObject({ ok: true, broadcast: { id: 'me', era: 2, nonce: 0 } });
  });

  it('loses the race, writing nothing, when the slot changed since the read', async () => {
    const f = new WindowFixture();
    await f.put(broadcast('old', 1, 0, 3));
    const read = await f.read();
    const rival = await f.put(broadcast('rival', 2, 0, 0));
    const out = await writeClaim({
      kv: f.kv,
      clock: f.clock,
      opTimeoutMs: 50,
      key: f.keys.leader(),
      read,
      claim: { id: 'me', era: 2, version: 0, members: [{ id: 'me', weight: 1 }] },
      current: () => true,
    });
    expect(out).toEqual({ outcome: 'race-lost' });
    expect(await f.kv.get(f.keys.leader().at(0))).toBe(rival);
  });
});

import { CompoundKey, MemoryKV, silentLogger } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { formatBroadcast, type Broadcast } from '../src/broadcast.js';
import { type Member } from '../src/ids.js';
import { LeaderWindow } from '../src/LeaderWindow.js';
import { coversBelow } from '../src/LeaderRead.js';
import { diffLists, ListCache, formatListStep, listIdOf, type ListId } from '../src/listStep.js';
import { nextVersion } from '../src/versions.js';
import { NOT_READ } from '../src/LeaderRead.js';

const I = 100;
const T = 500;
const members = (n: number): Member[] => Array.from({ length: n }, (_, i) => ({ id: `node-${i}`, weight: 1 }));

const stepKey = (to: ListId): string => `list/${to.era}/${to.nonce}/${to.id}/${to.epoch}`;

function setup(options: { steps?: boolean; lists?: ListCache; stillScanMs?: number } = {}) {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock });
  const faults = new FaultInjector({ clock, seed: 1, logCapacity: 10_000 });
  const kv = faults.view(store, 'f');
  const garbage: string[] = [];
  const window = new LeaderWindow({
    kv,
    key: new CompoundKey('leader', { window: 4 }),
    clock,
    logger: silentLogger,
    opTimeoutMs: I / 2, listStepBudgetMs: I / 4,
    stillMs: 1.5 * I,
    scanEveryMs: 5 * T,
    ...(options.stillScanMs !== undefined && { stillScanMs: options.stillScanMs }),
    onGarbage: (_n, raw) => garbage.push(raw),
    ...(options.steps && { stepKey, onList: (how: 'cached' | 'step' | 'whole') => lists.push(how) }),
    ...(options.lists && { lists: options.lists }),
  });
  const lists: ('cached' | 'step' | 'whole')[] = [];
  const ops = () => faults.operations().map((o) => `${o.op} ${o.key ?? ''}`);
  /** Bytes the store returned to the reader since the last call. */
  let seen = 0;
  const bytesRead = () => {
    const records = faults.operations().slice(seen);
    seen = faults.operations().length;
    return records.reduce((sum, o) => sum + (o.op === 'get' || o.op === 'getRange' ? Buffer.byteLength(o.result === 'null' ? '' : (o.result ?? '')) : 0), 0);
  };
  return { clock, store, faults, window, garbage, ops, bytesRead, lists };
}

/** A leader that publishes at `nonce` every interval. */
function publisher(store: MemoryKV, b: Broadcast, nonce = 0) {
  let current = b;
  return {
    get current() {
      return current;
    },
    async publish(list = current.members, options: { step?: boolean } = {}): Promise<void> {
      const changed = list !== current.members;
      const prev = current;
      current = { ...current, version: nextVersion(current.version, changed), members: list };
      // As LeaderRole does: the step to a new list is written before the list.
      const step = changed && options.step && prev.version > 0 ? diffLists(listIdOf(prev), prev.members, listIdOf(current), list) : undefined;
      if (step) await store.set(stepKey(step.to), formatListStep(step));
      await store.set(`leader ${nonce}`, formatBroadcast(current));
    },
  };
}

describe('LeaderWindow.read', () => {
  it('reads every nonce and picks the best broadcast; garbage is reported and never adopted', async () => {
    const { store, window, garbage } = setup();
    await store.set('leader 0', '3 0 1000 a a b');
    await store.set('leader 1', '4 1 0 c c');
    await store.set('leader 2', 'not a broadcast');
    const read = await window.read();
    expect(read.scanned).toBe(true);
    expect(read.slots.map((s) => s.state)).toEqual(['broadcast', 'broadcast', 'garbage', 'empty']);
    expect(read.best?.id).toBe('c');
    expect(garbage).toEqual(['not a broadcast']);
  });
});

describe('LeaderWindow.poll', () => {
  it('in steady state reads only the header of the nonce it follows: one getRange per poll', async () => {
    const { store, window, clock, ops } = setup();
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(100) });
    await leader.publish(leader.current.members.slice());
    await window.poll(); // the first poll scans
    const before = ops().length;
    for (let i = 0; i < 10; i++) {
      await clock.advance(I);
      await leader.publish();
      const read = await window.poll();
      expect(read.scanned).toBe(false);
      expect(read.best?.version).toBe(leader.current.version);
      expect(read.best?.members).toHaveLength(100);
      expect(read.slots[1]).toEqual({ nonce: 1, state: 'unavailable', error: NOT_READ });
    }
    expect(ops().slice(before)).toEqual(Array.from({ length: 10 }, () => 'getRange leader 0'));
  });

  it('reports the header of a new list it could not read whole (moving), and reads the list at the next poll', async () => {
    const { store, faults, window, clock } = setup();
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(100) });
    await leader.publish(leader.current.members.slice());
    const first = await window.poll();
    expect(first.moving).toBeUndefined();
    const failing = faults.failures({ probability: 1, ops: ['get'] });
    await clock.advance(I);
    await leader.publish(members(101));
    const blind = await window.poll();
    expect(blind.best?.version).not.toBe(leader.current.version);
    expect(blind.moving).toEqual({ era: 1, nonce: 0, version: leader.current.version, id: 'node-0' });
    failing.heal();
    await clock.advance(I);
    const seen = await window.poll();
    expect(seen.moving).toBeUndefined();
    expect(seen.best?.members).toHaveLength(101);
  });

  it('reports the header of a better leadership whose value it could not read (moving): a claim, or a new leader', async () => {
    const { store, faults, window, clock } = setup();
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(100) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    await clock.advance(I);
    await store.set('leader 0', formatBroadcast({ era: 2, nonce: 0, version: 1000, id: 'node-7', members: members(99) }));
    faults.failures({ probability: 1, ops: ['get'] });
    const read = await window.poll();
    expect(read.best).toBeUndefined();
    expect(read.moving).toEqual({ era: 2, nonce: 0, version: 1000, id: 'node-7' });
  });

  it('to a reader that knows nothing yet, reports the header of the best value it could not read whole (moving)', async () => {
    const { store, faults, window } = setup();
    await store.set('leader 1', formatBroadcast({ era: 1, nonce: 1, version: 3000, id: 'node-0', members: members(100) }));
    faults.failures({ probability: 1, ops: ['get'] });
    const read = await window.poll();
    expect(read.best).toBeUndefined();
    expect(read.moving).toEqual({ era: 1, nonce: 1, version: 3000, id: 'node-0' });
  });

  it('reads the same number of bytes per poll for 100 and for 1,000 members while the list is stable, periodic scans included', async () => {
    const perPoll: number[] = [];
    for (const n of [100, 1000]) {
      const { store, window, clock, bytesRead } = setup();
      const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(n) });
      await leader.publish(leader.current.members.slice());
      await window.poll();
      bytesRead();
      let scans = 0;
      for (let i = 0; i < 60; i++) {
        await clock.advance(I);
        await leader.publish();
        if ((await window.poll()).scanned) scans++;
      }
      expect(scans).toBe(2);
      perPoll.push(bytesRead() / 60);
    }
    expect(perPoll[0]).toBeGreaterThan(0);
    expect(perPoll[1]).toBe(perPoll[0]);
  });

  it('reads the whole value when the list epoch of the Version moved (the member list changed)', async () => {
    const { store, window, clock, ops } = setup();
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(20) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    await clock.advance(I);
    await leader.publish(members(21));
    const before = ops().length;
    const read = await window.poll();
    expect(ops().slice(before)).toEqual(['getRange leader 0', 'get leader 0']);
    expect(read.best?.members.map((m) => m.id)).toContain('node-20');
  });

  it('reads the whole value when the leadership at that nonce changed', async () => {
    const { store, window, clock, ops } = setup();
    await store.set('leader 0', formatBroadcast({ era: 1, nonce: 0, version: 1000, id: 'node-0', members: members(20) }));
    await window.poll();
    await clock.advance(I);
    await store.set('leader 0', formatBroadcast({ era: 2, nonce: 0, version: 1000, id: 'node-1', members: members(20).slice(1) }));
    const before = ops().length;
    const read = await window.poll();
    expect(ops().slice(before)).toEqual(['getRange leader 0', 'get leader 0']);
    expect(read.best).toMatchObject({ era: 2, id: 'node-1' });
  });

  it('a short value (a claim, a goodbye, a small cluster) is read whole by the getRange alone', async () => {
    const { store, window, clock, ops } = setup();
    await store.set('leader 0', '1 0 1000 a a b');
    await window.poll();
    await clock.advance(I);
    await store.set('leader 0', '1 0 1001 a');
    const before = ops().length;
    const read = await window.poll();
    expect(ops().slice(before)).toEqual(['getRange leader 0']);
    expect(read.best?.members).toEqual([]);
  });

  it('scans the whole window once the Version has been still for more than stillMs, and finds a claim made elsewhere', async () => {
    const { store, window, clock } = setup();
    await store.set('leader 1', formatBroadcast({ era: 1, nonce: 1, version: 1000, id: 'node-0', members: members(20) }));
    expect((await window.poll()).scanned).toBe(true);
    await clock.advance(I);
    expect((await window.poll()).scanned).toBe(false);
    await store.set('leader 0', '2 0 0 node-5 node-5');
    await clock.advance(I);
    const read = await window.poll();
    expect(read.scanned).toBe(true);
    expect(read.best).toMatchObject({ era: 2, nonce: 0, version: 0 });
  });

  it('polled every I/2 while the Version is still, scans at most every stillScanMs and reads only its nonce in between, where it finds a claim and its confirmation', async () => {
    const { store, window, clock, ops } = setup({ stillScanMs: (3 * I) / 4 });
    await store.set('leader 0', formatBroadcast({ era: 1, nonce: 0, version: 1000, id: 'node-0', members: members(20) }));
    await window.poll();
    await clock.advance(I);
    await window.poll();
    await clock.advance(I);
    // Still for 2I (> stillMs): this poll scans; the next, I/2 later, reads only nonce 0.
    expect((await window.poll()).scanned).toBe(true);
    await clock.advance(I / 2);
    const before = ops().length;
    expect((await window.poll()).scanned).toBe(false);
    expect(ops().slice(before)).toEqual(['getRange leader 0']);
    await clock.advance(I / 2);
    expect((await window.poll()).scanned).toBe(true);
    // A claim over nonce 0, then its first publication: both found by the cheap read.
    await store.set('leader 0', '2 0 0 node-5 node-5');
    await clock.advance(I / 2);
    let read = await window.poll();
    expect(read.scanned).toBe(false);
    expect(read.best).toMatchObject({ era: 2, nonce: 0, version: 0 });
    await store.set('leader 0', formatBroadcast({ era: 2, nonce: 0, version: 1000, id: 'node-5', members: members(20) }));
    await clock.advance(I / 2);
    read = await window.poll();
    expect(read.best).toMatchObject({ era: 2, nonce: 0, version: 1000, id: 'node-5' });
  });

  it('a follower backing off on a slow store passes a longer stillScanMs: a still Version is scanned less often, its nonce still read', async () => {
    const { store, window, clock, ops } = setup({ stillScanMs: (3 * I) / 4 });
    await store.set('leader 0', formatBroadcast({ era: 1, nonce: 0, version: 1000, id: 'node-0', members: members(20) }));
    await window.poll();
    // Still for 2I (> stillMs), and its first scan 2I ago: no scan yet at this pace.
    await clock.advance(2 * I);
    expect((await window.poll(undefined, false, 2.5 * I)).scanned).toBe(false);
    await clock.advance(I / 2);
    // Then a scan, then none for 2.5I, however often it polls.
    expect((await window.poll(undefined, false, 2.5 * I)).scanned).toBe(true);
    const before = ops().length;
    for (let i = 0; i < 4; i++) {
      await clock.advance(I / 2);
      expect((await window.poll(undefined, false, 2.5 * I)).scanned).toBe(false);
    }
    expect(ops().slice(before)).toEqual(Array.from({ length: 4 }, () => 'getRange leader 0'));
    await clock.advance(I / 2);
    expect((await window.poll(undefined, false, 2.5 * I)).scanned).toBe(true);
  });

  it('scans the whole window when its nonce is unavailable, empty or garbage', async () => {
    const { store, window, clock, faults, garbage } = setup();
    const b = (v: number, nonce = 0) => formatBroadcast({ era: 1, nonce, version: v, id: 'node-0', members: members(20) });
    await store.set('leader 0', b(1000));
    await window.poll();
    const fault = faults.keyUnavailable('leader 0');
    await store.set('leader 1', b(1001));
    await clock.advance(I);
    let read = await window.poll();
    expect(read.scanned).toBe(true);
    expect(read.best?.version).toBe(1001);
    fault.heal();
    await store.delete('leader 1');
    await store.set('leader 0', b(1002));
    await clock.advance(I);
    read = await window.poll();
    expect(read.scanned).toBe(true);
    expect(read.best?.version).toBe(1002);
    await store.set('leader 0', 'garbage here, long enough to fill the header read');
    await clock.advance(I);
    read = await window.poll();
    expect(read.scanned).toBe(true);
    expect(garbage.length).toBeGreaterThan(0);
  });

  it('garbage whose start reads as a better header does not hide the broadcast behind it', async () => {
    const { store, window, clock, garbage } = setup();
    await store.set('leader 0', '2 0 0 n2 n2');
    await window.poll();
    await store.set('leader 0', '2 0 1000 n2 n1 n2');
    await store.set('leader 1', '3 0 1 ghost ghost ');
    await clock.advance(2 * I);
    const read = await window.poll();
    expect(read.best).toMatchObject({ era: 2, version: 1000, id: 'n2' });
    expect(garbage).toContain('3 0 1 ghost ghost ');
  });

  it('scans at least every scanEveryMs even while the Version moves', async () => {
    const { store, window, clock } = setup();
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(20) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    let scans = 0;
    for (let t = 0; t < 5 * T; t += I) {
      await clock.advance(I);
      await leader.publish();
      if ((await window.poll()).scanned) scans++;
    }
    expect(scans).toBe(1);
  });

  it('coversBelow: a nonce that failed for the store, not for its key, is unknown, not absent', async () => {
    const { store, window, clock, faults } = setup();
    await store.set('leader 2', '2 2 0 n2 n2');
    // Its shard refuses (KeyUnavailableError): nobody can write there, nothing hides there.
    const down = faults.keyUnavailable('leader 0');
    let read = await window.read();
    expect(coversBelow(read, 2)).toBe(true);
    down.heal();
    // Its shard hangs: the nonce's own deadline passes (a frozen shard), the same.
    faults.keyUnavailable('leader 0', { hang: true, forMs: 10 * I });
    const hung = window.read();
    await clock.advance(I);
    read = await hung;
    expect(read.slots[0]?.state).toBe('unavailable');
    expect(coversBelow(read, 1)).toBe(true);
    await clock.advance(10 * I);
    // The store failed on it while the other nonces answered (clients reconnecting): a claim may be there.
    faults.failures({ probability: 1, keys: 'leader 1', forMs: I });
    read = await window.read();
    expect(read.slots[1]?.state).toBe('unavailable');
    expect(coversBelow(read, 1)).toBe(true);
    expect(coversBelow(read, 2)).toBe(false);
    expect(coversBelow(read, 3)).toBe(false);
    // A poll that read one nonce rules nothing out at the others.
    const fresh = setup();
    await fresh.store.set('leader 2', '2 2 0 n2 n2');
    await fresh.window.poll();
    read = await fresh.window.poll();
    expect(read.scanned).toBe(false);
    expect(coversBelow(read, 2)).toBe(false);
    expect(coversBelow(read, 0)).toBe(true);
  });
});

describe('LeaderWindow.check (a leader reading its window)', () => {
  const own: Broadcast = { era: 5, nonce: 0, version: 1007, id: 'leader', members: [{ id: 'leader', weight: 1 }, ...members(200)] };

  it('knows its own publication and the leaderships behind it by their headers: nothing is read whole', async () => {
    const { store, window, ops, bytesRead } = setup();
    const raw = formatBroadcast(own);
    await store.set('leader 0', raw);
    await store.set('leader 1', formatBroadcast({ ...own, version: 1003 })); // an older copy of its own
    await store.set('leader 2', formatBroadcast({ ...own, era: 4, nonce: 2, id: 'old', version: 9 })); // a worse leadership
    const read = await window.check({ nonce: 0, broadcast: own, raw });
    expect(ops().filter((o) => o.startsWith('get '))).toEqual([]);
    expect(bytesRead()).toBeLessThan(4 * 40);
    expect(read.slots.map((s) => s.state)).toEqual(['broadcast', 'behind', 'behind', 'empty']);
    expect(read.slots[0]).toMatchObject({ state: 'broadcast', raw, broadcast: own });
    expect(read.best).toBe(own);
    expect(read.reachable).toBe(true);
  });

  it('reads whole a better leadership, a later Version of its own, and whatever else is at its own nonce', async () => {
    const { store, window, garbage } = setup();
    const raw = formatBroadcast(own);
    const later = { ...own, version: 1008 };
    await store.set('leader 0', formatBroadcast(later)); // a publication whose reply was lost
    await store.set('leader 1', '6 1 0 rival rival'); // a better claim (short: read whole by the range)
    await store.set('leader 2', `7 2 3 usurper ${'x'.repeat(300)} !`); // a better header over garbage
    const read = await window.check({ nonce: 0, broadcast: own, raw });
    expect(read.slots[0]).toMatchObject({ state: 'broadcast', broadcast: later });
    expect(read.slots[1]).toMatchObject({ state: 'broadcast', broadcast: { era: 6, id: 'rival', version: 0 } });
    expect(read.slots[2]?.state).toBe('garbage');
    expect(garbage).toHaveLength(1);
    expect(read.best).toMatchObject({ era: 6, id: 'rival' });
  });

  it('an unavailable nonce is unavailable, and the others are still read', async () => {
    const { store, faults, window } = setup();
    const raw = formatBroadcast(own);
    await store.set('leader 0', raw);
    faults.keyUnavailable(['leader 3']);
    const read = await window.check({ nonce: 0, broadcast: own, raw });
    expect(read.slots.map((s) => s.state)).toEqual(['broadcast', 'empty', 'empty', 'unavailable']);
  });
});

describe('LeaderWindow.poll with list steps', () => {
  const grown = (list: readonly Member[], ...ids: string[]): Member[] => [...list, ...ids.map((id) => ({ id, weight: 1 }))];

  it('builds a new list from the step the leader wrote: a few bytes instead of the whole list', async () => {
    const { store, window, clock, ops, bytesRead, lists } = setup({ steps: true });
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(1000) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    bytesRead();
    await clock.advance(I);
    await leader.publish(grown(leader.current.members, 'node-new'), { step: true });
    const before = ops().length;
    const read = await window.poll();
    expect(ops().slice(before)).toEqual(['getRange leader 0', 'get list/1/0/node-0/2']);
    expect(read.best).toEqual(leader.current);
    expect(bytesRead()).toBeLessThan(100);
    expect(lists).toEqual(['whole', 'step']);
  });

  it('follows a chain of steps back to a list it holds (it missed a change)', async () => {
    const { store, window, clock, ops, lists } = setup({ steps: true });
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(100) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    await leader.publish(grown(leader.current.members, 'x1'), { step: true });
    await leader.publish(grown(leader.current.members, 'x2'), { step: true });
    await clock.advance(I);
    const before = ops().length;
    const read = await window.poll();
    expect(ops().slice(before)).toEqual(['getRange leader 0', 'get list/1/0/node-0/3', 'get list/1/0/node-0/2']);
    expect(read.best).toEqual(leader.current);
    expect(lists).toEqual(['whole', 'step']);
  });

  it('builds the first list of a new leader from the list of the one it replaced', async () => {
    const { store, window, clock, lists } = setup({ steps: true });
    const old: Broadcast = { era: 1, nonce: 0, version: 1000, id: 'node-0', members: members(100) };
    await store.set('leader 0', formatBroadcast(old));
    await window.poll();
    // The new leader's claim, found by a scan, then its first publication with a step from `old`.
    const claim: Broadcast = { era: 2, nonce: 1, version: 0, id: 'node-1', members: [{ id: 'node-1', weight: 1 }] };
    await store.set('leader 1', formatBroadcast(claim));
    await clock.advance(2 * I);
    expect((await window.poll()).best).toEqual(claim);
    const next: Broadcast = { ...claim, version: 1000, members: [{ id: 'node-1', weight: 1 }, ...members(100).filter((m) => m.id !== 'node-0' && m.id !== 'node-1')] };
    await store.set(stepKey(listIdOf(next)), formatListStep(diffLists(listIdOf(old), old.members, listIdOf(next), next.members)!));
    await store.set('leader 1', formatBroadcast(next));
    await clock.advance(I);
    expect((await window.poll()).best).toEqual(next);
    expect(lists).toEqual(['whole', 'step']);
  });

  it('reads the whole list when the step is missing, garbage, for another list, or does not fit: never a wrong list', async () => {
    const { store, window, clock, lists } = setup({ steps: true });
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(50) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    const cases = ['', 'garbage', '1 0 node-0 9 1 0 node-0 1 51 +50:zz', '1 0 node-0 {to} 1 0 node-0 1 51 +50:node-3', '1 0 node-0 {to} 1 0 node-0 1 52 +50:zz'];
    for (const [i, bad] of cases.entries()) {
      await clock.advance(I);
      await leader.publish(grown(leader.current.members, `j${i}`));
      const to = Math.floor(leader.current.version / 1000);
      if (bad !== '') await store.set(`list/1/0/node-0/${to}`, bad.replace('{to}', String(to)));
      expect((await window.poll()).best, bad).toEqual(leader.current);
    }
    expect(lists).toEqual(['whole', ...cases.map(() => 'whole')]);
  });

  it('after a step read failed, reads whole lists without trying steps until the next periodic scan', async () => {
    const { store, window, clock, faults, ops, lists } = setup({ steps: true });
    const leader = publisher(store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(50) });
    await leader.publish(leader.current.members.slice());
    await window.poll();
    const down = faults.keyUnavailable('list/1/0/node-0/2');
    await clock.advance(I);
    await leader.publish(grown(leader.current.members, 'a'), { step: true });
    expect((await window.poll()).best).toEqual(leader.current);
    await clock.advance(I);
    await leader.publish(grown(leader.current.members, 'b'), { step: true });
    const before = ops().length;
    expect((await window.poll()).best).toEqual(leader.current);
    expect(ops().slice(before)).toEqual(['getRange leader 0', 'get leader 0']);
    expect(lists).toEqual(['whole', 'whole', 'whole']);
    down.heal();
    await clock.advance(5 * T);
    await leader.publish(grown(leader.current.members, 'c'), { step: true });
    expect((await window.poll()).best).toEqual(leader.current);
    expect(lists.at(-1)).toBe('step');
  });

  it('windows that share a ListCache read or build each new list once: the others take it from the cache', async () => {
    const cache = new ListCache();
    const a = setup({ steps: true, lists: cache });
    const leader = publisher(a.store, { era: 1, nonce: 0, version: 0, id: 'node-0', members: members(100) });
    await leader.publish(leader.current.members.slice());
    const b = { ...a, window: new LeaderWindow({ kv: a.faults.view(a.store, 'g'), key: new CompoundKey('leader', { window: 4 }), clock: a.clock, logger: silentLogger, opTimeoutMs: I / 2, listStepBudgetMs: I / 4, stillMs: 1.5 * I, scanEveryMs: 5 * T, stepKey, lists: cache, onList: (how) => a.lists.push(how) }) };
    await a.window.poll();
    await b.window.poll();
    expect(a.lists).toEqual(['whole', 'cached']);
    await a.clock.advance(I);
    await leader.publish(grown(leader.current.members, 'x'), { step: true });
    const before = a.ops().length;
    expect((await a.window.poll()).best).toEqual(leader.current);
    const read = await b.window.poll();
    expect(read.best).toEqual(leader.current);
    expect(read.best?.members).toBe((await a.window.poll()).best?.members);
    expect(a.lists.slice(2)).toEqual(['step', 'cached']);
    expect(a.ops().slice(before)).toEqual(['getRange leader 0', 'get list/1/0/node-0/2', 'getRange leader 0', 'getRange leader 0']);
  });

  it('windows that share a ListCache and poll at once read a new list once: the others wait for that read', async () => {
    const cache = new ListCache();
    const a = setup({ lists: cache });
    await a.store.set('leader 0', formatBroadcast({ era: 1, nonce: 0, version: 1000, id: 'node-0', members: members(500) }));
    const windows = Array.from({ length: 20 }, () => new LeaderWindow({ kv: a.faults.view(a.store, 'g'), key: new CompoundKey('leader', { window: 4 }), clock: a.clock, logger: silentLogger, opTimeoutMs: I / 2, listStepBudgetMs: I / 4, lists: cache }));
    const reads = await Promise.all(windows.map((w) => w.poll()));
    expect(reads.every((r) => r.best?.members.length === 500)).toBe(true);
    expect(a.ops().filter((o) => o === 'get leader 0')).toHaveLength(1);
  });
});

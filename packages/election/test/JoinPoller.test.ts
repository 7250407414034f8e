import { type Member } from '@roster/follower';
import { Joiner } from '@roster/follower/internal';
import { CompoundKey, MemoryKV, silentLogger } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { JoinPoller } from '../src/JoinPoller.js';

const I = 100;

function setup(options: { maxValueBytes?: number } = {}) {
  const clock = new VirtualClock();
  const store = new MemoryKV({ clock, ...options });
  const faults = new FaultInjector({ clock, seed: 1, logCapacity: 100_000 });
  const joined: Member[][] = [];
  let garbage = 0;
  const poller = new JoinPoller({
    kv: faults.view(store, 'leader'),
    key: new CompoundKey('join', { window: 4 }),
    clock,
    logger: silentLogger,
    intervalMs: I,
    opTimeoutMs: I / 2,
    onJoin: (ms) => joined.push(ms),
    onGarbage: () => garbage++,
  });
  const joiner = (id: string, weight = 1) =>
    new Joiner({ kv: faults.view(store, id), key: new CompoundKey('join', { window: 4 }), clock, self: { id, weight }, opTimeoutMs: I / 2 });
  return { clock, store, faults, poller, joiner, joined, garbage: () => garbage };
}

describe('JoinPoller', () => {
  it('takes every nonce of the join key in one poll and hands over the joiners with their weights', async () => {
    const { store, poller, joined, faults } = setup();
    await store.append('join 0', ' a b:3');
    await store.append('join 2', ' c');
    await poller.poll();
    expect(joined).toEqual([[{ id: 'a', weight: 1 }, { id: 'b', weight: 3 }, { id: 'c', weight: 1 }]]);
    expect(faults.operations().filter((o) => o.op === 'take')).toHaveLength(4);
    expect(await store.get('join 0')).toBeNull();
  });

  it('reports and drops tokens that do not parse, keeping the others', async () => {
    const { store, poller, joined, garbage } = setup();
    await store.append('join 0', ' a bad:id:x ok');
    await poller.poll();
    expect(joined.flat().map((m) => m.id)).toEqual(['a', 'ok']);
    expect(garbage()).toBe(1);
  });

  it('hands over 1,000 ids appended within one interval in a single poll, none lost', async () => {
    const { poller, joiner, joined } = setup();
    const ids = Array.from({ length: 1000 }, (_, i) => `node-${i}`);
    await Promise.all(ids.map((id) => joiner(id).append()));
    await poller.poll();
    expect(joined).toHaveLength(1);
    expect(joined[0]!.map((m) => m.id).sort()).toEqual([...ids].sort());
  });

  it('an id appended while a poll takes the key is in that poll or the next, never lost', async () => {
    const { poller, joiner, joined, clock } = setup();
    const appends = Array.from({ length: 50 }, (_, i) => joiner(`n${i}`));
    await Promise.all([poller.poll(), ...appends.map((j) => j.append())]);
    await clock.advance(0);
    await poller.poll();
    expect(joined.flat().map((m) => m.id).sort()).toEqual(appends.map((_, i) => `n${i}`).sort());
  });

  it('a joiner whose join key is full spills over to the next nonce, which the poller takes too', async () => {
    const { poller, joiner, joined, store } = setup({ maxValueBytes: 64 });
    const ids = Array.from({ length: 20 }, (_, i) => `node-${String(i).padStart(2, '0')}`);
    for (const id of ids) await joiner(id).append();
    expect(await store.get('join 1')).not.toBeNull();
    await poller.poll();
    expect(joined.flat().map((m) => m.id).sort()).toEqual(ids);
  });
});

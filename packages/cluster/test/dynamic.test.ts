import { describe, expect, it } from 'vitest';
import { AbortError } from '@roster/kv-adapter';
import { I, Sim, T } from './support/harness.js';

describe('dynamic clustering on MemoryKV and the virtual clock', () => {
  it('a lone instance is a member within T + 2I: join() resolves with index 0 of its thread count', async () => {
    const sim = new Sim();
    const a = sim.add('a', 3);
    let joined: unknown;
    void a.join().then((b) => (joined = b));
    const took = await sim.until(() => joined !== undefined, 10 * T, 'join');
    expect(took).toBeLessThanOrEqual(T + 2 * I);
    expect(joined).toEqual({ index: 0, threads: 3, total: 3 });
    expect(sim.rebalances.get('a')).toHaveLength(1);
    expect(a.node?.isLeader()).toBe(true);
    expect(a.leader?.id).toBe('a');
    await sim.leaveAll();
  });

  it('an instance joining a running cluster is a member on every instance within 3 intervals', async () => {
    const sim = new Sim();
    sim.join('b');
    sim.join('c', 2);
    await sim.until(() => sim.converged(), 20 * T);
    sim.join('a', 5);
    const took = await sim.until(() => sim.converged(), 20 * T, 'a is seen by all');
    expect(took).toBeLessThanOrEqual(3 * I);
    // While waiting to be admitted it saw a total of 3 but held no index: nothing was reported.
    expect(sim.rebalances.get('a')).toMatchObject([{ index: 0, threads: 5, total: 8, previous: { index: -1, total: 0 } }]);
    expect(sim.live().map((h) => [h.id, h.index, h.total])).toEqual([
      ['b', 5, 8],
      ['c', 6, 8],
      ['a', 0, 8],
    ]);
    await sim.leaveAll();
  });

  it('the generation grows with every re-balance an instance reports', async () => {
    const sim = new Sim();
    for (const id of ['a', 'b', 'c', 'd']) sim.join(id);
    await sim.until(() => sim.converged(), 20 * T);
    sim.get('c').destroy();
    await sim.until(() => sim.live().every((h) => h.total === 3), 20 * T);
    await sim.get('b').leave();
    await sim.until(() => sim.live().every((h) => h.total === 2), 20 * T);
    for (const id of ['a', 'd']) {
      const generations = sim.rebalances.get(id)!.map((u) => u.generation!);
      expect(generations.length).toBeGreaterThan(2);
      for (let k = 1; k < generations.length; k++) expect(generations[k]! > generations[k - 1]!).toBe(true);
    }
    await sim.leaveAll();
  });

  it('cluster.generation read under an old member list is lower than any read under a later one, on every instance', async () => {
    const sim = new Sim();
    for (const id of ['a', 'b', 'c']) sim.join(id);
    await sim.until(() => sim.converged(), 20 * T);
    const before = sim.live().map((h) => h.generation!);
    await sim.clock.advance(3 * I);
    const later = sim.live().map((h) => h.generation!);
    for (const [k, g] of later.entries()) expect(g).toBeGreaterThan(before[k]!); // refreshed by every read
    const oldList = sim.live().map((h) => h.generation!);
    sim.get('b').destroy();
    await sim.until(() => sim.converged(), 20 * T);
    const newList = sim.live().map((h) => h.generation!);
    for (const g of newList) for (const old of oldList) expect(g > old).toBe(true);
    expect(sim.get('b').generation).toBeUndefined();
    await sim.leaveAll();
  });

  it('join({ signal }) rejects with the reason on abort, and the handle keeps joining', async () => {
    const sim = new Sim();
    const a = sim.add('a');
    const controller = new AbortController();
    const joining = a.join({ signal: controller.signal });
    await sim.clock.advance(I);
    controller.abort(new AbortError());
    await expect(joining).rejects.toMatchObject({ code: 'ABORTED' });
    expect(a.state).toBe('joined');
    await sim.until(() => a.isMember, 10 * T);
    await sim.leaveAll();
  });

  it('leave() before the instance is a member rejects the pending join() with CLUSTER_LEFT', async () => {
    const sim = new Sim();
    const a = sim.add('a');
    const joining = a.join();
    await sim.clock.advance(I);
    const leaving = a.leave();
    await expect(joining).rejects.toMatchObject({ code: 'CLUSTER_LEFT' });
    await sim.clock.advance(T);
    await leaving;
    expect(a.state).toBe('left');
    expect(sim.rebalances.get('a')).toEqual([]);
  });

  it('leave() on an instance that never joined only ends it', async () => {
    const sim = new Sim();
    const a = sim.add('a');
    const types: string[] = [];
    a.watch((u) => types.push(u.type));
    await a.leave();
    expect(types).toEqual(['left']);
    expect(a.node).toBeUndefined();
  });

  it('instances of one group in two environments never meet', async () => {
    const sim = new Sim();
    const prod = sim.add('p', 1, { env: 'production' });
    const dev = sim.add('d', 1, { env: 'dev' });
    sim.join('p');
    sim.join('d');
    await sim.until(() => prod.isMember && dev.isMember, 10 * T);
    await sim.clock.advance(5 * I);
    expect(prod.balance).toEqual({ index: 0, threads: 1, total: 1 });
    expect(dev.balance).toEqual({ index: 0, threads: 1, total: 1 });
    expect(await sim.kv.get('roster/app/production/leader 0')).toMatch(/ p$/);
    expect(await sim.kv.get('roster/app/dev/leader 0')).toMatch(/ d$/);
    await sim.leaveAll();
  });

  it('destroy() reports −1 locally at once, and the others see a crash', async () => {
    const sim = new Sim();
    sim.join('a');
    sim.join('b');
    await sim.until(() => sim.converged(), 20 * T);
    const b = sim.get('b');
    const types: string[] = [];
    b.watch((u) => types.push(u.type));
    b.destroy();
    expect(b.index).toBe(-1);
    expect(types).toEqual(['rebalance', 'left']);
    expect(b.node?.state).toBe('stopped');
    await sim.clock.advance(2 * I);
    expect(sim.get('a').total).toBe(2); // not yet: a crash is noticed after the timeout
    await sim.until(() => sim.get('a').total === 1, 10 * T);
    await sim.leaveAll();
  });
});

import { describe, expect, it } from 'vitest';
import { I, Sim, T } from './support/harness.js';

/** The bound on a crash docs/cluster.md promises: the Roster timeout plus four intervals. */
const CRASH_BOUND = T + 4 * I;

async function seedCluster(): Promise<Sim> {
  const sim = new Sim();
  sim.join('node1', 2);
  sim.join('node2', 1);
  sim.join('node3', 4);
  await sim.until(() => sim.converged(), 20 * T, 'node1, node2 and node3 agree');
  return sim;
}

describe("the seed's example on MemoryKV and the virtual clock", () => {
  it('node1 ×2, node2 and node3 ×4 get bases 0, 2 and 3 and a total of 7 on every node', async () => {
    const sim = await seedCluster();
    expect(sim.get('node1').balance).toEqual({ index: 0, threads: 2, total: 7 });
    expect(sim.get('node2').balance).toEqual({ index: 2, threads: 1, total: 7 });
    expect(sim.get('node3').balance).toEqual({ index: 3, threads: 4, total: 7 });
    for (const h of sim.live()) {
      expect(h.instances).toEqual([
        { id: 'node1', threads: 2, index: 0 },
        { id: 'node2', threads: 1, index: 2 },
        { id: 'node3', threads: 4, index: 3 },
      ]);
    }
    // The thread count travels in the broadcast as id:weight, and a weight of 1 as the plain id.
    const broadcast = await sim.kv.get('roster/app/spec/leader 0');
    expect(broadcast).toMatch(/ node1:2 node2 node3:4$/);
    await sim.leaveAll();
  });

  it('every re-balance is reported with the previous balance, the first one on joining', async () => {
    const sim = await seedCluster();
    for (const [id, seen] of sim.rebalances) {
      expect(seen[0]!.previous).toEqual({ index: -1, total: 0 });
      expect(seen.at(-1)).toMatchObject({ type: 'rebalance', total: 7, index: sim.get(id).index });
      for (let k = 1; k < seen.length; k++) {
        expect(seen[k]!.previous).toEqual({ index: seen[k - 1]!.index, total: seen[k - 1]!.total });
        expect([seen[k]!.index, seen[k]!.total]).not.toEqual([seen[k - 1]!.index, seen[k - 1]!.total]);
      }
    }
    await sim.leaveAll();
  });

  it(`killing node2 re-balances node1 and node3 to 0 and 2 of 6 within T + 4I (${CRASH_BOUND} ms)`, async () => {
    const sim = await seedCluster();
    const crashedAt = sim.clock.now();
    sim.get('node2').destroy();
    const took = await sim.until(
      () => sim.get('node1').total === 6 && sim.get('node3').total === 6,
      10 * T,
      'node1 and node3 re-balance',
    );
    expect(took).toBeLessThanOrEqual(CRASH_BOUND);
    expect(sim.get('node1').balance).toEqual({ index: 0, threads: 2, total: 6 });
    expect(sim.get('node3').balance).toEqual({ index: 2, threads: 4, total: 6 });
    expect(sim.clock.now() - crashedAt).toBe(took);
    await sim.leaveAll();
  });

  it(`killing the instance that leads the Roster cluster re-balances the others within T + 4I too`, async () => {
    const sim = await seedCluster();
    const leader = sim.live().find((h) => h.node?.isLeader())!;
    expect(leader).toBeDefined();
    const others = sim.live().filter((h) => h !== leader);
    const total = 7 - leader.threads;
    leader.destroy();
    const took = await sim.until(() => others.every((h) => h.total === total), 10 * T, 'the others re-balance');
    expect(took).toBeLessThanOrEqual(CRASH_BOUND);
    expect(sim.converged()).toBe(true);
    await sim.leaveAll();
  });

  it('node2 leaving gracefully re-balances the others within two intervals, and reports −1 with the remaining total', async () => {
    const sim = await seedCluster();
    const node2 = sim.get('node2');
    const leaving = node2.leave();
    const took = await sim.until(() => sim.get('node1').total === 6 && sim.get('node3').total === 6, 10 * T, 're-balance');
    await leaving;
    expect(took).toBeLessThanOrEqual(2 * I);
    expect(node2.state).toBe('left');
    expect(sim.rebalances.get('node2')!.at(-1)).toMatchObject({ index: -1, threads: 1, total: 6, previous: { index: 2, total: 7 } });
    expect(sim.get('node3').balance).toEqual({ index: 2, threads: 4, total: 6 });
    await sim.leaveAll();
  });

  it('the instance leading the Roster cluster leaving gracefully: the others re-balance within 3I', async () => {
    // The others elect at once on its goodbye, and the new leader does not carry the resigned one over.
    const sim = await seedCluster();
    const leader = sim.live().find((h) => h.node?.isLeader())!;
    const others = sim.live().filter((h) => h !== leader);
    const total = 7 - leader.threads;
    const leaving = leader.leave();
    const took = await sim.until(() => others.every((h) => h.total === total), 10 * T, 'the others re-balance');
    await leaving;
    expect(took).toBeLessThanOrEqual(3 * I);
    expect(sim.converged()).toBe(true);
    await sim.leaveAll();
  });
});

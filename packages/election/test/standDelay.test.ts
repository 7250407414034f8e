import { describe, expect, it } from 'vitest';
import { Cluster, I, T } from './support/harness.js';

/** Records when each node first became a candidate after `since`. */
function candidacies(c: Cluster, since: () => number): Map<string, number> {
  const stood = new Map<string, number>();
  for (const n of c.live()) {
    n.on('role', (u) => {
      if (u.role === 'candidate' && !stood.has(n.id)) stood.set(n.id, c.clock.now() - since());
    });
  }
  return stood;
}

describe('after a leader crash, only the first three members after the leader stand at T; the next 27 wait one interval more, the rest two', () => {
  it('seven followers: the three that follow the leader in the list stand, the other four follow a claim instead', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
    await c.until(() => c.converged(), 20 * T);
    const old = c.leaders()[0]!;
    let crashedAt = 0;
    const stood = candidacies(c, () => crashedAt);
    crashedAt = c.clock.now();
    old.destroy();
    const took = await c.until(() => c.leaders().length === 1, 10 * T, 'failover');
    expect(took).toBeLessThanOrEqual(T + 2 * I);
    await c.until(() => c.converged(), 10 * T);
    const early = c.live().map((n) => n.id).filter((id) => id !== old.id).sort().slice(0, 3);
    expect([...stood.keys()].sort()).toEqual(early);
    for (const ms of stood.values()) expect(ms).toBeLessThanOrEqual(T + I);
    await c.stopAll();
  });

  it('when the three early candidates died with the leader, a later member stands one interval after T, so failover is within T + 3I', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c', 'd', 'e', 'f');
    await c.until(() => c.converged(), 20 * T);
    const old = c.leaders()[0]!;
    const ids = c.live().map((n) => n.id).filter((id) => id !== old.id).sort();
    const doomed = ids.slice(0, 3).map((id) => c.nodes.get(id)!);
    let crashedAt = 0;
    const stood = candidacies(c, () => crashedAt);
    crashedAt = c.clock.now();
    old.destroy();
    for (const n of doomed) n.destroy();
    const took = await c.until(() => c.leaders().length === 1, 10 * T, 'failover');
    expect(took).toBeGreaterThan(T + I / 2);
    expect(took).toBeLessThanOrEqual(T + 3 * I);
    const late = [...stood.entries()].filter(([id]) => !doomed.some((n) => n.id === id));
    expect(late.length).toBeGreaterThan(0);
    for (const [, ms] of late) expect(ms).toBeGreaterThanOrEqual(T + I - I / 2);
    await c.stopAll();
  });

  it('when the first 30 members after the leader died with it, the rest stand two intervals after T', async () => {
    const c = new Cluster();
    const ids = Array.from({ length: 36 }, (_, i) => `n${String(i).padStart(2, '0')}`);
    await c.start(...ids);
    await c.until(() => c.converged(), 40 * T);
    const old = c.leaders()[0]!;
    const after = c.live().map((n) => n.id).filter((id) => id !== old.id).sort();
    const doomed = after.slice(0, 30).map((id) => c.nodes.get(id)!);
    let crashedAt = 0;
    const stood = candidacies(c, () => crashedAt);
    crashedAt = c.clock.now();
    old.destroy();
    for (const n of doomed) n.destroy();
    const took = await c.until(() => c.leaders().length === 1, 20 * T, 'failover');
    expect(took).toBeGreaterThan(T + 2 * I - I / 2);
    expect(took).toBeLessThanOrEqual(T + 4 * I);
    const late = [...stood.entries()].filter(([id]) => !doomed.some((n) => n.id === id));
    expect(late.length).toBeGreaterThan(0);
    for (const [, ms] of late) expect(ms).toBeGreaterThanOrEqual(T + 2 * I - I / 2);
    await c.stopAll();
  });
});

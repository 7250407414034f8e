import { describe, expect, it } from 'vitest';
import { Cluster, I, T } from './support/harness.js';

describe('mass joins', () => {
  it('1,000 nodes started at once elect one leader and are all listed on every node within a few intervals of the election', async () => {
    const c = new Cluster();
    const ids = Array.from({ length: 1000 }, (_, i) => `node-${String(i).padStart(4, '0')}`);
    await c.start(...ids);
    const elected = await c.until(() => c.leaders().length === 1, 10 * T, 'a leader');
    const leader = c.leaders()[0]!;
    const admitted = await c.until(() => leader.members.list.length === ids.length, 10 * T, 'every node admitted');
    const seen = await c.until(
      () => c.live().every((n) => n.leader?.id === leader.id && n.members.list.length === ids.length),
      10 * T,
      'every node sees every member',
    );
    expect(c.leaders()).toHaveLength(1);
    // A cold cluster elects after T + 1.5I; joiners append at once, the leader takes them all.
    expect(elected).toBeLessThanOrEqual(T + 2 * I);
    expect(admitted).toBeLessThanOrEqual(4 * I);
    expect(seen).toBeLessThanOrEqual(2 * I);
    expect(new Set(leader.memberIds)).toEqual(new Set(ids));
    for (const n of c.live()) n.destroy();
  }, 300_000);
});

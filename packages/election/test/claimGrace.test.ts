import { formatBroadcast, RosterKeys } from '@roster/follower';
import { Namespace } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { Cluster, I, T } from './support/harness.js';

describe('a claim that stands still', () => {
  it('counts as still only after T + 2I, not T: its candidate may be confirming right then (claim-still-while-confirming)', async () => {
    const c = new Cluster();
    // A candidate's claim, whose candidate never confirms (it died right after claiming).
    const leader0 = new RosterKeys(new Namespace('test', 'spec'), 4).leader().at(0);
    await c.store.inner.set(leader0, formatBroadcast({ era: 1, nonce: 0, version: 0, id: 'z', members: [{ id: 'z', weight: 1 }] }));
    const a = c.add('a');
    let stoodAt: number | undefined;
    a.on('role', (u) => {
      if (u.role === 'candidate') stoodAt ??= c.clock.now();
    });
    await c.start('a');
    // The situation: a follows nothing but the claim (it reads it, and knows no leader).
    expect(a.stats['leader.read']).toBeGreaterThan(0);
    expect(a.leader).toBeUndefined();
    await c.until(() => stoodAt !== undefined, 4 * T, 'a stands');
    expect(stoodAt).toBeGreaterThanOrEqual(T + 2 * I);
    expect(stoodAt).toBeLessThanOrEqual(T + 3 * I);
    a.destroy();
  });
});

import { describe, expect, it } from 'vitest';
import { formatBroadcast } from '@roster/follower';
import { Cluster, I, T } from './support/harness.js';

const leaderKey = (n: number) => `roster/test/spec/leader ${n}`;

describe('election on MemoryKV and the virtual clock', () => {
  it('a lone node becomes leader within T + 2I of starting', async () => {
    const c = new Cluster();
    await c.start('a');
    const took = await c.until(() => c.nodes.get('a')!.isLeader(), 10 * T, 'a leads');
    expect(took).toBeLessThanOrEqual(T + 2 * I);
    const a = c.nodes.get('a')!;
    expect(a.role).toBe('leader');
    expect(a.leader).toMatchObject({ id: 'a', era: 1, nonce: 0 });
    expect(a.memberIds).toEqual(['a']);
    expect(await c.store.inner.get(leaderKey(0))).toMatch(/^1 0 \d+ a a$/);
    await c.stopAll();
  });

  it('five nodes converge on one leader and the full member list', async () => {
    const c = new Cluster();
    await c.start('n1', 'n2', 'n3', 'n4', 'n5');
    await c.until(() => c.converged(), 20 * T, 'convergence');
    expect(c.leaders()).toHaveLength(1);
    for (const n of c.live()) expect(n.memberIds).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    await c.stopAll();
  });

  it('the leader holds every follower’s PING → PONG round trip as the follower reported it', async () => {
    const c = new Cluster();
    await c.start('n1', 'n2', 'n3');
    await c.until(() => c.converged(), 20 * T, 'convergence');
    const leader = c.leaders()[0]!;
    const followers = c.live().filter((n) => n !== leader);
    await c.until(() => leader.pongRoundTrips().size === followers.length, 10 * T, 'PONG round trips reported');
    for (const f of followers) {
      const reported = leader.pongRoundTrips().get(f.id);
      expect(reported).toBeGreaterThanOrEqual(0);
      expect(reported).toBeLessThanOrEqual(2 * I + 1); // a PONG is read at the follower's next PING
    }
    expect([...leader.pongRoundTrips().keys()]).not.toContain(leader.id);
    for (const f of followers) expect(f.pongRoundTrips().size).toBe(0);
    await c.stopAll();
  });

  it('a node that joins a running cluster is listed on every node within 2 intervals of its admission', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    let admittedAt: number | undefined;
    leader.on('members', (u) => {
      if (u.added.includes('d')) admittedAt = c.clock.now();
    });
    await c.start('d');
    await c.until(() => admittedAt !== undefined, 5 * T, 'admission');
    const took = await c.until(() => c.live().every((n) => n.memberIds.includes('d')), 5 * T);
    expect(took).toBeLessThanOrEqual(2 * I);
    await c.stopAll();
  });

  it('after a leader crash a new leader is elected within T + 2I, with a higher fencing token', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c', 'd');
    await c.until(() => c.converged(), 20 * T);
    const old = c.leaders()[0]!;
    const oldToken = old.leader!.token;
    old.destroy();
    const took = await c.until(() => c.leaders().length === 1, 10 * T, 'failover');
    expect(took).toBeLessThanOrEqual(T + 2 * I);
    const fresh = c.leaders()[0]!;
    expect(fresh.leader!.token).toBeGreaterThan(oldToken);
    await c.until(() => c.converged(), 10 * T);
    expect(fresh.memberIds).not.toContain(old.id);
    await c.stopAll();
  });

  it('a crashed follower is removed after the timeout, and not before', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const victim = c.live().find((n) => !n.isLeader())!;
    const crashAt = c.clock.now();
    victim.destroy();
    await c.clock.advance(T - I);
    expect(c.leaders()[0]!.memberIds).toContain(victim.id);
    await c.until(() => c.live().every((n) => !n.memberIds.includes(victim.id)), 5 * T, 'removal');
    expect(c.clock.now() - crashAt).toBeLessThanOrEqual(T + 3 * I);
    await c.stopAll();
  });

  it('a follower that stops gracefully is removed at once, well before the timeout', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const victim = c.live().find((n) => !n.isLeader())!;
    void victim.stop();
    const took = await c.until(() => c.live().every((n) => !n.memberIds.includes(victim.id)), 5 * T);
    expect(took).toBeLessThanOrEqual(3 * I);
    await c.stopAll();
  });

  it('a leader that stops gracefully says goodbye and the others elect at once', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const old = c.leaders()[0]!;
    const goodbyes: string[] = [];
    for (const n of c.live()) if (n !== old) n.on('goodbye', (u) => goodbyes.push(u.leader.id));
    void old.stop();
    const took = await c.until(() => c.leaders().length === 1 && !c.leaders().includes(old), 5 * T);
    expect(took).toBeLessThan(T);
    expect(goodbyes).toEqual([old.id, old.id]);
    await c.until(() => c.converged(), 5 * T);
    await c.stopAll();
  });

  it('a leader dethroned by a better claim steps down within one interval', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const era = leader.leader!.era;
    await c.store.inner.set(leaderKey(3), formatBroadcast({ era: era + 5, nonce: 3, version: 0, id: 'zed', members: [{ id: 'zed', weight: 1 }] }));
    const took = await c.until(() => !leader.isLeader(), 5 * T);
    expect(took).toBeLessThanOrEqual(I);
    expect(leader.role).not.toBe('leader');
    // The claim never confirms; the cluster elects again above it.
    await c.until(() => c.converged(), 20 * T);
    expect(c.leaders()[0]!.leader!.era).toBeGreaterThan(era + 5);
    await c.stopAll();
  });

  it('garbage in the leader key is ignored and counted, never adopted', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    for (const junk of ['99 0 5', 'x y z w', '7 0 1 b\u00e9d id', '9 0 -1 a a', '1e3 0 1 q q', '', '5 0 0 a b']) {
      await c.store.inner.set(leaderKey(2), junk);
      await c.clock.advance(T);
      expect(c.leaders()).toEqual([leader]);
      expect(c.live().every((n) => n.leader?.id === leader.id)).toBe(true);
    }
    const garbage = c.live().reduce((sum, n) => sum + (n.stats.garbage ?? 0), 0);
    expect(garbage).toBeGreaterThan(0);
    await c.stopAll();
  });

  it('garbage in the join key is ignored and good ids beside it are admitted', async () => {
    const c = new Cluster();
    await c.start('a');
    await c.until(() => c.converged(), 20 * T);
    await c.store.inner.append('roster/test/spec/join 0', ' ::bad:: ok1 x:0 \u00e9t\u00e9');
    await c.until(() => c.nodes.get('a')!.memberIds.includes('ok1'), 5 * T);
    expect(c.nodes.get('a')!.memberIds).toEqual(['a', 'ok1']);
    // ok1 never PINGs, so it is dropped after the timeout.
    await c.until(() => !c.nodes.get('a')!.memberIds.includes('ok1'), 5 * T);
    await c.stopAll();
  });

  it('an observer follows the leader and members without joining or campaigning', async () => {
    const c = new Cluster();
    c.add('obs', { observer: true });
    await c.start('obs');
    await c.clock.advance(5 * T);
    expect(c.nodes.get('obs')!.role).toBe('observer');
    expect(c.leaders()).toHaveLength(0);
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    expect(c.nodes.get('obs')!.memberIds).toEqual(['a', 'b']);
    await c.stopAll();
  });
});

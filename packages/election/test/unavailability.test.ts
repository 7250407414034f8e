import { describe, expect, it } from 'vitest';
import { Cluster, I, T } from './support/harness.js';

const ns = 'roster/test/spec/';

describe('compound keys move when a key is unavailable, and readers find them', () => {
  it('leader key: when nonce 0 dies, the leader moves to nonce 1 and every follower keeps following it (broadcastNonce shows the move)', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const era = leader.leader!.era;
    for (const n of c.live()) expect(n.broadcastNonce).toBe(0);
    c.store.unavailable(`${ns}leader 0`);
    await c.clock.advance(3 * T);
    expect(c.leaders()).toEqual([leader]);
    expect(leader.leader!.era).toBe(era);
    const moved = await c.store.inner.get(`${ns}leader 1`);
    expect(moved).toMatch(new RegExp(`^${era} 0 \\d+ ${leader.id} `));
    for (const n of c.live()) expect(n.leader?.id).toBe(leader.id);
    // The leadership still says nonce 0 (where it was claimed); the broadcast is at nonce 1.
    expect(leader.leader!.nonce).toBe(0);
    for (const n of c.live()) expect(n.broadcastNonce).toBe(1);
    expect(c.converged()).toBe(true);
    await c.stopAll();
  });

  it('leader key: a cold cluster whose nonce 0 is dead elects at nonce 1', async () => {
    const c = new Cluster();
    c.store.unavailable(`${ns}leader 0`);
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    expect(c.leaders()[0]!.leader!.nonce).toBe(1);
    await c.stopAll();
  });

  it('a node that knows no era does not claim while a leader nonce and an era nonce are both dead, and claims once the era key answers whole', async () => {
    // It cannot tell a new store from one whose era is hidden at those nonces: era 1 at nonce 1
    // could rank below a leadership held at nonce 0.
    const c = new Cluster();
    c.store.unavailable(`${ns}leader 0`);
    const eraKeyDown = c.store.unavailable(`${ns}era 0`);
    const a = await c.start('a').then(() => c.nodes.get('a')!);
    await c.clock.advance(3 * T);
    expect(c.leaders()).toEqual([]);
    expect(a.stats['claim.deferred']).toBeGreaterThan(0);
    eraKeyDown.heal();
    await c.until(() => c.converged(), 20 * T);
    expect(a.leader).toMatchObject({ id: 'a', era: 1, nonce: 1 });
    await c.stopAll();
  });

  it('join key: a joiner whose join key is dead appends at the next nonce and the leader admits it', async () => {
    const c = new Cluster();
    await c.start('a');
    await c.until(() => c.converged(), 20 * T);
    c.store.unavailable(`${ns}join 0`, 'b');
    await c.start('b');
    await c.until(() => c.converged(), 10 * T, 'b admitted');
    expect(c.nodes.get('a')!.memberIds).toEqual(['a', 'b']);
    expect(c.store.ops.get('b')?.get('append')).toBeGreaterThanOrEqual(2);
    await c.stopAll();
  });

  it('id key: a follower whose id key dies moves its PINGs to the next nonce; the leader PONGs there and keeps it', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    const follower = c.live().find((n) => !n.isLeader())!;
    c.store.unavailable(`${ns}id/${follower.id} 0`);
    await c.clock.advance(4 * T);
    expect(c.converged()).toBe(true);
    expect(c.leaders()[0]!.memberIds).toContain(follower.id);
    expect(await c.store.inner.get(`${ns}id/${follower.id} 1`)).toMatch(/^P[IO]NG \d+( \d+)?$/);
    expect(follower.role).toBe('follower');
    await c.stopAll();
  });

  it('a listed follower that cannot read the leader key at any nonce but keeps finding its leader\'s PONGs does not stand: the leader it hears is alive', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const follower = c.live().find((n) => !n.isLeader())!;
    const pongsBefore = c.store.ops.get(leader.id)?.get('exchange') ?? 0;
    const blind = c.store.unavailable({ prefix: `${ns}leader ` }, follower.id);
    const roles: string[] = [];
    follower.on('role', (u) => roles.push(`${u.role} ${u.reason}`));
    await c.clock.advance(5 * T);
    // The situation: the leader kept PONGing the follower all along, and the follower saw no Version move.
    expect((c.store.ops.get(leader.id)?.get('exchange') ?? 0) - pongsBefore).toBeGreaterThanOrEqual((5 * T) / I - 2);
    expect(follower.leader?.id).toBe(leader.id);
    expect(roles).toEqual([]);
    blind.heal();
    await c.clock.advance(2 * I);
    expect(c.converged()).toBe(true);
    expect(c.leaders()).toEqual([leader]);
    await c.stopAll();
  });

  it('a listed follower that cannot read the nonces where its leader publishes (leader 0 and 1, as through a stale routing table) while the others read fine does not stand against the leader that PONGs it', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const follower = c.live().find((n) => !n.isLeader())!;
    expect(leader.broadcastNonce).toBe(0);
    const unread = [c.store.unavailable(`${ns}leader 0`, follower.id), c.store.unavailable(`${ns}leader 1`, follower.id)];
    const roles: string[] = [];
    for (const n of c.live()) n.on('role', (u) => roles.push(`${n.id} ${u.role} ${u.reason}`));
    const versionBefore = leader.members.version;
    await c.clock.advance(5 * T);
    // The situation: the leader kept publishing at nonce 0, which this follower alone could not read.
    expect(leader.broadcastNonce).toBe(0);
    expect(leader.members.version).toBeGreaterThan(versionBefore + (4 * T) / I);
    expect(follower.members.version).toBeLessThanOrEqual(versionBefore + 1);
    expect(roles).toEqual([]);
    expect(c.leaders()).toEqual([leader]);
    for (const u of unread) u.heal();
    await c.clock.advance(2 * I);
    expect(c.converged()).toBe(true);
    await c.stopAll();
  });

  it('a follower that can read neither the leader key at any nonce nor its own id key stands once its leader is silent for T + 2I, claims nothing it cannot write, and follows again once it sees the leader alive', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const follower = c.live().find((n) => !n.isLeader())!;
    const blindLeader = c.store.unavailable({ prefix: `${ns}leader ` }, follower.id);
    const deaf = c.store.unavailable({ prefix: `${ns}id/${follower.id} ` }, follower.id);
    const blind = { heal: () => (blindLeader.heal(), deaf.heal()) };
    const roles: string[] = [];
    const leaderRoles: string[] = [];
    follower.on('role', (u) => roles.push(`${u.role} ${u.reason}`));
    leader.on('role', (u) => leaderRoles.push(u.role));
    await c.clock.advance(5 * T);
    expect(roles).toEqual(['candidate unreachable']);
    blind.heal();
    await c.until(() => c.converged() && follower.role === 'follower', 10 * T);
    expect(roles).toEqual(['candidate unreachable', 'follower leader-alive']);
    expect(leaderRoles).toEqual([]);
    expect(c.leaders()).toEqual([leader]);
    await c.stopAll();
  });
});

describe('self-fencing', () => {
  it('a leader that cannot publish stops calling itself leader after the renew deadline (store-unavailable), before any follower may stand', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const fenced: number[] = [];
    const stood: number[] = [];
    const signal = leader.leadership!;
    signal.addEventListener('abort', () => fenced.push(c.clock.now()));
    for (const n of c.live()) if (n !== leader) n.on('role', (u) => u.role === 'candidate' && stood.push(c.clock.now()));
    // The leader alone loses the leader key at every nonce.
    const cutOff = c.store.unavailable({ prefix: `${ns}leader ` }, leader.id);
    const cut = c.clock.now();
    await c.until(() => stood.length > 0, 10 * T, 'a follower stands');
    expect(fenced).toHaveLength(1);
    expect(fenced[0]! - cut).toBeLessThanOrEqual(T / 2 + I);
    expect(fenced[0]!).toBeLessThan(stood[0]!);
    expect(signal.reason).toMatchObject({ code: 'LEADERSHIP_LOST', reason: 'store-unavailable' });
    expect(leader.isLeader()).toBe(false);
    await c.until(() => c.leaders().length === 1 && !c.leaders().includes(leader), 10 * T);
    cutOff.heal();
    await c.until(() => c.converged(), 10 * T);
    await c.stopAll();
  });

  it('isLeader() turns false at the lease deadline even if the leader process is paused', async () => {
    const c = new Cluster();
    await c.start('a');
    await c.until(() => c.converged(), 20 * T);
    const a = c.nodes.get('a')!;
    // Every nonce of the leader key is unavailable: the leader cannot publish, only its clock moves.
    const signal = a.leadership!;
    c.store.unavailable({ prefix: `${ns}leader ` });
    await c.clock.advance(T / 2 + I);
    expect(a.isLeader()).toBe(false);
    expect(signal.aborted).toBe(true);
    await c.stopAll();
  });
});

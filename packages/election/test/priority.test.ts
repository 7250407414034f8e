import { describe, expect, it } from 'vitest';
import { checkNodeOptions, createNode, type RosterNode } from '../src/index.js';
import { Cluster, I, T } from './support/harness.js';

/** Every role update of every live node from now on, as `id role reason`. */
function roleLog(c: Cluster): string[] {
  const log: string[] = [];
  for (const n of c.live()) n.on('role', (u) => log.push(`${n.id} ${u.role} ${u.reason}`));
  return log;
}

describe('the priority option', () => {
  it('is an integer from 0 to MAX_PRIORITY, 0 by default, refused otherwise with a ConfigError naming `priority`', () => {
    const base = { group: 'g', env: 'e' };
    expect(checkNodeOptions(base).priority).toBe(0);
    expect(checkNodeOptions({ ...base, priority: 1_004_002 }).priority).toBe(1_004_002);
    for (const bad of [-1, 1.5, Number.NaN, 1e12, '2' as unknown as number]) {
      expect(() => checkNodeOptions({ ...base, priority: bad })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'priority' }));
    }
  });
});

describe('a leader hands over to a member of higher priority', () => {
  it('once that member has PINGed it for T: resigned (told first), goodbye, the member of higher priority leads, nobody of lower priority stands', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const old = c.leaders()[0]!;
    const log = roleLog(c);
    const joinedAt = c.clock.now();
    const z = c.add('z', { priority: 2 });
    z.on('role', (u) => log.push(`z ${u.role} ${u.reason}`));
    void z.start();
    const took = await c.until(() => z.isLeader(), 10 * T, 'hand-over');
    // The situation: z joined a converged group of priority 0, was listed, and settled for T first.
    expect(took).toBeGreaterThanOrEqual(T);
    // (Plus up to 7/32 I: the leader's PONG worker that hears z starts that late in its beat.)
    expect(took).toBeLessThanOrEqual(T + 4 * I + (7 / 32) * I);
    expect(log).toContain(`${old.id} follower resigned`);
    // Only z stood: the members of priority 0 deferred to it on the goodbye.
    expect(log.filter((l) => l.includes(' candidate ')).map((l) => l.split(' ')[0])).toEqual(['z']);
    expect(old.stats.preempted).toBe(1);
    await c.until(() => c.converged(), 10 * T);
    expect(c.leaders()).toEqual([z]);
    expect(z.members.list.find((m) => m.id === 'z')).toEqual({ id: 'z', weight: 1, priority: 2 });
    // And it stays: no further change for 5T.
    const changes = log.length;
    await c.clock.advance(5 * T);
    expect(c.leaders()).toEqual([z]);
    expect(log.length).toBe(changes);
    expect(c.clock.now() - joinedAt).toBeGreaterThan(T);
    await c.stopAll();
  });

  it('equal priorities behave as without priorities: no hand-over', async () => {
    const c = new Cluster();
    for (const id of ['a', 'b', 'c']) c.add(id, { priority: 7 });
    await c.start('a', 'b', 'c');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const log = roleLog(c);
    await c.clock.advance(10 * T);
    expect(c.leaders()).toEqual([leader]);
    expect(log).toEqual([]);
    await c.stopAll();
  });

  it('after a leader crash, the member of higher priority wins among the candidates', async () => {
    const c = new Cluster();
    c.add('a');
    c.add('b');
    c.add('c');
    c.add('d');
    c.add('y', { priority: 1 });
    await c.start('a');
    await c.until(() => c.leaders().length === 1, 10 * T);
    // `a` leads; y outranks it, so y takes over first (the situation), then y crashes.
    await c.start('b', 'c', 'd', 'y');
    const y = c.nodes.get('y')!;
    await c.until(() => y.isLeader(), 20 * T, 'y leads');
    await c.until(() => c.converged(), 10 * T);
    // `d` comes back with priority 1 (a restart onto the new version), then the leader y crashes.
    c.nodes.get('d')!.destroy();
    const d2 = c.add('d', { priority: 1 });
    void d2.start();
    await c.until(() => y.members.list.some((m) => m.id === 'd' && m.priority === 1), 10 * T, 'd relisted with priority 1');
    const log = roleLog(c);
    y.destroy();
    const took = await c.until(() => c.leaders().length === 1, 10 * T, 'failover');
    expect(c.leaders()).toEqual([d2]);
    expect(took).toBeLessThanOrEqual(T + 2 * I);
    // The members of priority 0 deferred: only d stood.
    expect(log.filter((l) => l.includes(' candidate ')).map((l) => l.split(' ')[0])).toEqual(['d']);
    await c.stopAll();
  });

  it('a member restarted with a higher priority (same id, still listed) joins again and is listed with it', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const other = c.live().find((n) => n !== leader)!;
    other.destroy();
    const again: RosterNode = c.add(other.id, { priority: 3 });
    void again.start();
    await c.until(() => again.isLeader(), 10 * T, 'restarted member takes over');
    expect(again.members.list.find((m) => m.id === again.id)?.priority).toBe(3);
    await c.stopAll();
  });
});

describe('createNode', () => {
  it('carries the priority in node.settings', () => {
    const c = new Cluster();
    const n = createNode({ store: c.store.view('x'), group: 'g', env: 'e', priority: 5 });
    expect(n.settings.priority).toBe(5);
  });
});

import { describe, expect, it } from 'vitest';
import type { RosterNode } from '../src/index.js';
import { Cluster, I, T } from './support/harness.js';
import { HeldClock } from './support/HeldClock.js';

/** A cluster of three where `a` leads, `a` running on a clock (and store view) that can be paused. */
async function pausable(): Promise<{ c: Cluster; a: RosterNode; clock: HeldClock; stood: number[] }> {
  const c = new Cluster();
  const clock = new HeldClock(c.clock);
  const a = c.add('a', { clock, store: clock.wrap(c.store.view('a')) });
  await c.start('a');
  await c.until(() => a.isLeader(), 20 * T);
  await c.start('b', 'c');
  await c.until(() => c.converged(), 20 * T);
  const stood: number[] = [];
  for (const id of ['b', 'c']) c.nodes.get(id)!.on('role', (u) => u.role === 'candidate' && stood.push(c.clock.now()));
  return { c, a, clock, stood };
}

describe('the lease', () => {
  it('past the lease deadline, role, isLeader(), leadership and the updates agree even before the lease timer ran (a paused process)', async () => {
    const { c, a, clock } = await pausable();
    const signal = a.leadership;
    const roles: unknown[] = [];
    a.on('role', (u) => roles.push(u));
    clock.pause();
    await c.clock.advance(T / 2 + I);
    // Nothing of `a` ran meanwhile (its lease timer is held too)…
    expect(roles).toEqual([]);
    // …yet whoever reads it is told the truth, and the update that says so is sent at that moment.
    expect(a.isLeader()).toBe(false);
    expect(a.role).toBe('candidate');
    expect(a.leadership).toBeUndefined();
    expect(signal?.aborted).toBe(true);
    expect(roles).toEqual([{ type: 'role', role: 'candidate', previous: 'leader', reason: 'lease-expired' }]);
    clock.resume();
    await c.stopAll();
  });

  for (const pauseMs of [T / 2 + I, T - I - 10]) {
    it(`a leader paused for ${pauseMs} ms (< T − I) re-validates its lapsed lease and keeps leading: no follower stands`, async () => {
      const { c, a, clock, stood } = await pausable();
      const era = a.leader?.era;
      const signal = a.leadership;
      const shown: [string, string][] = [];
      a.on('role', (u) => shown.push([u.role, u.reason]));
      clock.pause();
      await c.clock.advance(pauseMs);
      expect(a.isLeader()).toBe(false);
      clock.resume();
      await c.clock.advance(0);
      // The lapse aborted the leadership signal and showed `candidate`; re-validation gives a fresh one and `leader` again.
      expect(signal?.aborted).toBe(true);
      await c.until(() => a.isLeader(), 2 * I, 're-validation');
      expect(a.leadership?.aborted).toBe(false);
      expect(shown).toEqual([
        ['candidate', 'lease-expired'],
        ['leader', 'revalidated'],
      ]);
      await c.clock.advance(2 * T);
      expect(stood).toEqual([]);
      expect(a.isLeader()).toBe(true);
      expect(c.nodes.get('b')!.leader).toMatchObject({ id: 'a', era });
      expect(c.converged()).toBe(true);
      await c.stopAll();
    });
  }

  it('a leader paused for T + I is replaced, and on resume finds the better leadership and steps down (dethroned)', async () => {
    const { c, a, clock } = await pausable();
    const reasons: string[] = [];
    a.on('role', (u) => reasons.push(`${u.role} ${u.reason}`));
    clock.pause();
    await c.clock.advance(T + I);
    clock.resume();
    await c.until(() => c.converged(), 4 * T);
    expect(c.leaders()).not.toContain(a);
    // Shown as `candidate` from its lease deadline on (it re-validates), then dethroned.
    expect(reasons).toEqual(['candidate lease-expired', 'follower dethroned']);
    await c.stopAll();
  });

  it('a leader that stops right after a pause still says goodbye: the others elect well within T', async () => {
    const { c, a, clock } = await pausable();
    clock.pause();
    await c.clock.advance(T - 2 * I);
    clock.resume();
    await c.clock.advance(0);
    const stopped = c.clock.now();
    const stopping = a.stop();
    const took = await c.until(() => c.leaders().length === 1 && !c.leaders().includes(a), T, 'a new leader');
    await stopping;
    expect(took).toBeLessThan(T);
    expect(c.clock.now() - stopped).toBeLessThan(T);
    await c.stopAll();
  });
});

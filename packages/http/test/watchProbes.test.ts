import { createNode, type RosterNode } from '@roster/election';
import { MemoryKV } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { describe, expect, it } from 'vitest';
import { InstrumentedKV } from '../src/metrics/InstrumentedKV.js';
import { watchProbes } from '../src/probes/watchProbes.js';

const I = 100;
const T = 500;

/** One node on a MemoryKV behind faults and an InstrumentedKV, all on one virtual clock. */
function setup() {
  const clock = new VirtualClock();
  const faults = new FaultInjector({ clock, seed: 5 });
  const kv = new InstrumentedKV(faults.view(new MemoryKV({ clock })), { clock, deadlineMs: I / 2 });
  const node = createNode({ store: kv, group: 'billing', env: 'test', id: 'only', intervalMs: I, timeoutMs: T, clock });
  const probes = watchProbes(node, { store: kv, clock });
  return { clock, faults, kv, node, probes };
}

async function lead(clock: VirtualClock, node: RosterNode): Promise<void> {
  const started = node.start();
  await clock.advanceUntil(() => node.isLeader(), 10 * T, 10);
  await started;
  expect(node.isLeader()).toBe(true);
}

describe('watchProbes', () => {
  it('a node not started yet is live and not ready; once it leads, it is both', async () => {
    const { clock, node, probes } = setup();
    expect(probes.liveness()).toEqual({ ok: true, reason: 'the node has not started yet' });
    expect(probes.readiness()).toEqual({ ok: false, reason: 'the node has not started yet' });
    await lead(clock, node);
    expect(probes.liveness()).toEqual({ ok: true, reason: 'ok' });
    expect(probes.readiness()).toEqual({ ok: true, reason: 'ok' });
    expect(probes.input()).toMatchObject({ state: 'running', role: 'leader', isLeader: true, leader: 'only', listed: true, lapsedSince: undefined, intervalMs: I, timeoutMs: T });
    probes.stop();
    node.destroy();
  });

  it('tracks a leader’s lapsed lease from its role updates, until it is re-validated', async () => {
    const { clock, faults, node, probes } = setup();
    await lead(clock, node);
    const outage = faults.storeOutage();
    const lapsed = await clock.advanceUntil(() => node.role === 'candidate', T, 5);
    expect(lapsed).toBeDefined();
    const at = clock.now();
    expect(probes.input().lapsedSince).toBeGreaterThan(at - 10);
    expect(probes.input().lapsedSince).toBeLessThanOrEqual(at);
    expect(probes.readiness().reason).toBe('the leader’s lease ran out (re-validating)');
    // The store is down: not the node's fault, so it stays live, and turns not ready after T.
    await clock.advance(T);
    expect(probes.liveness().ok).toBe(true);
    expect(probes.readiness().reason).toMatch(/^the store has not answered for \d+ ms: store_unavailable: /);

    outage.heal();
    await clock.advanceUntil(() => node.isLeader(), 10 * T, 10);
    expect(node.isLeader()).toBe(true);
    expect(probes.input().lapsedSince).toBeUndefined();
    expect(probes.readiness()).toEqual({ ok: true, reason: 'ok' });
    probes.stop();
    node.destroy();
  });

  it('a stopped node is not live; stop() ends the watch and is idempotent', async () => {
    const { clock, node, probes } = setup();
    await lead(clock, node);
    const stopped = node.stop();
    await clock.advance(T);
    await stopped;
    expect(probes.liveness()).toEqual({ ok: false, reason: 'the node is stopped' });
    expect(probes.readiness()).toEqual({ ok: false, reason: 'the node is stopped' });
    probes.stop();
    probes[Symbol.dispose]();
  });

  it('takes the interval and the timeout from the node’s settings, never from a second copy', () => {
    const clock = new VirtualClock();
    const kv = new InstrumentedKV(new MemoryKV({ clock }), { clock });
    const node = createNode({ store: kv, group: 'billing', env: 'test', id: 'slow', intervalMs: 300, timeoutMs: 2000, clock });
    const probes = watchProbes(node, { store: kv, clock });
    expect(probes.input()).toMatchObject({ intervalMs: 300, timeoutMs: 2000 });
    probes.stop();
  });
});

import { createNode } from '@roster/election';
import { MemoryKV, realClock } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { InstrumentedKV } from '../src/metrics/InstrumentedKV.js';
import { PromRosterMetrics } from '../src/metrics/PromRosterMetrics.js';
import { watchNodeMetrics } from '../src/metrics/watchNodeMetrics.js';

describe('Roster metrics in a service’s own registry (the example of the README)', () => {
  it('a service’s registry serves its own metrics and the node’s roster_ metrics side by side', async () => {
    const registry = new Registry();
    const jobs = new Counter({ name: 'billing_jobs_total', help: 'Jobs run.', registers: [registry] });
    const metrics = new PromRosterMetrics({ registry });
    const kv = new InstrumentedKV(new MemoryKV(), { metrics, clock: realClock, deadlineMs: 25 });
    const node = createNode({ store: kv, group: 'billing', env: 'test', id: 'only', intervalMs: 50, timeoutMs: 200 });
    const unwatch = watchNodeMetrics(node, metrics);
    try {
      await node.start();
      const start = Date.now();
      while (!node.isLeader() && Date.now() - start < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(node.isLeader()).toBe(true);
      jobs.inc();

      const text = await registry.metrics();
      expect(text).toContain('billing_jobs_total 1');
      expect(text).toContain('roster_is_leader 1');
      expect(text).toContain('roster_role{role="leader"} 1');
      expect(text).toContain('roster_elections_total{outcome="won"} 1');
      expect(text).toMatch(/roster_store_operations_total\{operation="compareAndSet",outcome="ok"\} [1-9]/);
      expect(text).toContain('roster_members 1');
    } finally {
      unwatch();
      await node.stop();
      await kv.close();
    }
  });

  it('a leader whose leader key becomes unavailable moves to the next nonce, and the metrics say so', async () => {
    const clock = new VirtualClock();
    const faults = new FaultInjector({ clock, seed: 3 });
    const metrics = new PromRosterMetrics();
    const kv = new InstrumentedKV(faults.view(new MemoryKV({ clock })), { metrics, clock, deadlineMs: 50 });
    const node = createNode({ store: kv, group: 'billing', env: 'test', id: 'only', intervalMs: 100, timeoutMs: 500, clock });
    const unwatch = watchNodeMetrics(node, metrics, { clock });
    const started = node.start();
    for (let i = 0; i < 40 && !node.isLeader(); i++) await clock.advance(50);
    await started;
    expect(node.isLeader()).toBe(true);

    faults.keyUnavailable('roster/billing/test/leader 0');
    for (let i = 0; i < 10; i++) await clock.advance(50);
    expect(node.isLeader()).toBe(true);
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/roster_nonce_moves_total\{key="leader"\} [1-9]/);
    expect(text).toMatch(/roster_store_errors_total\{kind="key_unavailable"\} [1-9]/);
    unwatch();
    node.destroy();
  });
});

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MAX_MEMBER_SERIES, PromRosterMetrics } from '../src/metrics/PromRosterMetrics.js';

/** The value of one sample line, e.g. `roster_elections_total{outcome="won"}`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('PromRosterMetrics', () => {
  it('registers every roster_ metric in the registry it is given, next to the service’s own', async () => {
    const registry = new Registry();
    const metrics = new PromRosterMetrics({ registry });
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual([
      'leader_election_master_status',
      'leader_election_slowpath_total',
      'roster_elections_total',
      'roster_era',
      'roster_fencing_token',
      'roster_is_leader',
      'roster_leader_changes_total',
      'roster_member_pong_round_trip_omitted',
      'roster_member_pong_round_trip_seconds',
      'roster_members',
      'roster_membership_version',
      'roster_nonce_moves_total',
      'roster_pong_round_trip_seconds',
      'roster_role',
      'roster_store_errors_total',
      'roster_store_operation_duration_seconds',
      'roster_store_operations_total',
    ]);
    expect(metrics.registry).toBe(registry);
    expect(() => new PromRosterMetrics({ registry })).toThrow(/already been registered/);
  });

  it('exports client-go’s leader-election series once the settings name the group: master_status follows the role, slowpath counts slow renewals', async () => {
    const metrics = new PromRosterMetrics();
    metrics.role('leader');
    metrics.slowRenewals(2);
    // No group yet: no client-go sample (their dashboards group by `name`).
    expect(await metrics.registry.metrics()).not.toMatch(/^leader_election_master_status\{/m);
    metrics.settings({ id: 'a', group: 'billing', env: 'prod', intervalMs: 1000, timeoutMs: 5000, renewDeadlineMs: 2500, settleMs: 100, operationTimeoutMs: 500, leaderWorkTimeoutMs: 5000, nonceWindow: 4, weight: 1, priority: 0, observer: false });
    let text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE leader_election_master_status gauge');
    expect(text).toContain('# TYPE leader_election_slowpath_total counter');
    expect(sample(text, 'leader_election_master_status{name="billing"}')).toBe(1);
    expect(sample(text, 'leader_election_slowpath_total{name="billing"}')).toBe(2);
    metrics.slowRenewals(1);
    metrics.slowRenewals(0);
    metrics.role('candidate');
    text = await metrics.registry.metrics();
    expect(sample(text, 'leader_election_master_status{name="billing"}')).toBe(0);
    expect(sample(text, 'leader_election_slowpath_total{name="billing"}')).toBe(3);
    expect(sample(text, 'roster_is_leader')).toBe(0);
  });

  it('shows the role, leadership and members it was told of', async () => {
    const metrics = new PromRosterMetrics();
    metrics.role('leader');
    metrics.leader({ era: 3, token: 4095n });
    metrics.leader({ era: 3, token: 4095n }); // the same leadership again: no change
    metrics.leader({ era: 4, token: 5119n });
    metrics.members(3, 17);
    metrics.election('won');
    const text = await metrics.registry.metrics();
    expect(sample(text, 'roster_role{role="leader"}')).toBe(1);
    expect(sample(text, 'roster_role{role="follower"}')).toBe(0);
    expect(sample(text, 'roster_is_leader')).toBe(1);
    expect(sample(text, 'roster_era')).toBe(4);
    expect(sample(text, 'roster_fencing_token')).toBe(5119);
    expect(sample(text, 'roster_leader_changes_total')).toBe(2);
    expect(sample(text, 'roster_members')).toBe(3);
    expect(sample(text, 'roster_membership_version')).toBe(17);
    expect(sample(text, 'roster_elections_total{outcome="won"}')).toBe(1);
    expect(sample(text, 'roster_elections_total{outcome="lost"}')).toBe(0);
  });

  it('counts store operations by operation and outcome, errors by kind, and times them in seconds', async () => {
    const metrics = new PromRosterMetrics({ labels: { node: 'a' } });
    metrics.storeOperation('get', 0.0004, undefined);
    metrics.storeOperation('get', 0.2, 'timeout');
    metrics.malformedValues(2);
    metrics.pongRoundTrip(0.21);
    metrics.nonceMove('leader');
    const text = await metrics.registry.metrics();
    expect(sample(text, 'roster_store_operations_total{operation="get",outcome="ok",node="a"}')).toBe(1);
    expect(sample(text, 'roster_store_operations_total{operation="get",outcome="error",node="a"}')).toBe(1);
    expect(sample(text, 'roster_store_errors_total{kind="timeout",node="a"}')).toBe(1);
    expect(sample(text, 'roster_store_errors_total{kind="malformed_value",node="a"}')).toBe(2);
    expect(sample(text, 'roster_store_errors_total{kind="key_unavailable",node="a"}')).toBe(0);
    expect(sample(text, 'roster_store_operation_duration_seconds_bucket{le="0.0005",node="a",operation="get"}')).toBe(1);
    expect(sample(text, 'roster_store_operation_duration_seconds_count{node="a",operation="get"}')).toBe(2);
    expect(sample(text, 'roster_pong_round_trip_seconds_bucket{le="0.25",node="a"}')).toBe(1);
    expect(sample(text, 'roster_nonce_moves_total{key="leader",node="a"}')).toBe(1);
    expect(sample(text, 'roster_nonce_moves_total{key="id",node="a"}')).toBe(0);
    expect(sample(text, 'roster_pong_round_trip_seconds_bucket{le="0.1",node="a"}')).toBe(0);
  });

  it('exports each member’s reported latency at the leader, at most MAX_MEMBER_SERIES of them, and counts the rest', async () => {
    const metrics = new PromRosterMetrics();
    metrics.memberPongRoundTrips(new Map([['b', 12], ['a', 250]]));
    let text = await metrics.registry.metrics();
    expect(sample(text, 'roster_member_pong_round_trip_seconds{member="a"}')).toBe(0.25);
    expect(sample(text, 'roster_member_pong_round_trip_seconds{member="b"}')).toBe(0.012);
    expect(sample(text, 'roster_member_pong_round_trip_omitted')).toBe(0);
    const many = new Map(Array.from({ length: MAX_MEMBER_SERIES + 20 }, (_, i) => [`m${String(i).padStart(4, '0')}`, i] as const));
    metrics.memberPongRoundTrips(many);
    text = await metrics.registry.metrics();
    expect(text.split('\n').filter((l) => l.startsWith('roster_member_pong_round_trip_seconds{')).length).toBe(MAX_MEMBER_SERIES);
    expect(sample(text, 'roster_member_pong_round_trip_seconds{member="a"}')).toBeUndefined(); // a member gone loses its series
    expect(sample(text, 'roster_member_pong_round_trip_omitted')).toBe(20);
  });
});

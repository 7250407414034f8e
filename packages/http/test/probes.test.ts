import { describe, expect, it } from 'vitest';
import { liveness, readiness, type ProbeInput } from '../src/probes/probes.js';

/** A follower listed by leader `b`, whose store answered 100 ms ago (T = 1000, I = 200). */
const follower: ProbeInput = {
  state: 'running',
  role: 'follower',
  isLeader: false,
  leader: 'b',
  listed: true,
  store: { lastStartedAt: 9_950, lastSuccessAt: 9_900, lastErrorAt: undefined, lastError: undefined, inFlight: 0, storeRoundTripMs: undefined },
  now: 10_000,
  timeoutMs: 1000,
  intervalMs: 200,
};

describe('/healthz', () => {
  it('is healthy while the node runs, and while it connects', () => {
    expect(liveness(follower)).toEqual({ ok: true, reason: 'ok' });
    expect(liveness({ ...follower, state: 'connecting', role: undefined }).ok).toBe(true);
  });

  it('is healthy before the node starts', () => {
    expect(liveness({ ...follower, state: 'idle', role: 'follower', leader: undefined })).toEqual({ ok: true, reason: 'the node has not started yet' });
  });

  it('is unhealthy once the node stops', () => {
    expect(liveness({ ...follower, state: 'stopping' })).toEqual({ ok: false, reason: 'the node is stopping' });
  });

  it('is unhealthy when a leader whose lease lapsed (shown as candidate) has not re-validated it for T although the store answers', () => {
    const lapsedLeader = { ...follower, role: 'candidate', leader: 'a', isLeader: false };
    expect(liveness({ ...follower, role: 'leader', leader: 'a', isLeader: true }).ok).toBe(true);
    expect(liveness({ ...lapsedLeader, lapsedSince: 9_500 }).ok).toBe(true); // within T: re-validating
    expect(liveness({ ...lapsedLeader, lapsedSince: 8_900 }).reason).toMatch(/has not re-validated its lease for 1100 ms although the store answers/);
    const outage = { ...follower.store, lastSuccessAt: 5_000 };
    expect(liveness({ ...lapsedLeader, lapsedSince: 5_000, store: outage }).ok).toBe(true); // the store's fault, not the node's
  });

  it('stays healthy through a store outage, as long as the loops keep trying', () => {
    const outage = { ...follower.store, lastSuccessAt: 5_000, lastError: { kind: 'timeout' as const, message: 'timed out' } };
    expect(liveness({ ...follower, store: outage }).ok).toBe(true);
  });

  it('is unhealthy when no store operation started for T: the loops have stalled', () => {
    expect(liveness({ ...follower, store: { ...follower.store, lastStartedAt: 8_000 } }).reason).toMatch(/no store operation started for 2000 ms/);
  });
});

describe('/readyz', () => {
  it('is ready when the store answered within T, a leader is known and the node is listed', () => {
    expect(readiness(follower)).toEqual({ ok: true, reason: 'ok' });
  });

  it('is not ready when the store has not answered for T, and says what failed last', () => {
    const store = { ...follower.store, lastSuccessAt: 8_900, lastError: { kind: 'timeout' as const, message: 'get: Command timed out' } };
    expect(readiness({ ...follower, store }).reason).toBe('the store has not answered for 1100 ms: timeout: get: Command timed out');
    expect(readiness({ ...follower, store: { ...follower.store, lastSuccessAt: undefined } }).reason).toBe('the store has not answered ever');
  });

  it('is not ready without a leader, or when not listed', () => {
    expect(readiness({ ...follower, leader: undefined }).reason).toBe('no leader known');
    expect(readiness({ ...follower, listed: false }).reason).toMatch(/not \(yet\) a member/);
  });

  it('is ready as the leader while its lease holds, and as an observer that knows a leader', () => {
    expect(readiness({ ...follower, role: 'leader', leader: 'a', listed: true, isLeader: true }).ok).toBe(true);
    expect(readiness({ ...follower, role: 'leader', leader: 'a', isLeader: false }).ok).toBe(false);
    expect(readiness({ ...follower, role: 'candidate', leader: 'a', isLeader: false, lapsedSince: 9_900 }).reason).toBe('the leader’s lease ran out (re-validating)');
    expect(readiness({ ...follower, role: 'observer', listed: false }).ok).toBe(true);
  });

  it('is not ready while connecting, before the start, or once stopped', () => {
    expect(readiness({ ...follower, state: 'connecting' }).reason).toBe('connecting to the store');
    expect(readiness({ ...follower, state: 'idle' }).reason).toBe('the node has not started yet');
    expect(readiness({ ...follower, state: 'stopped' }).reason).toBe('the node is stopped');
  });
});

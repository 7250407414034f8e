import type { StoreHealth } from '../metrics/InstrumentedKV.js';

/** What the probes look at: the node's state now, as its public API reports it. */
export interface ProbeInput {
  /**
   * The node's lifecycle state (`node.state`: `idle`, `running`, `stopping`, `stopped`), or
   * `"connecting"` for a program that has no node yet (it is still connecting to the store).
   */
  readonly state: string;
  readonly role: string | undefined;
  /** `node.isLeader()`: leads and published within the renew deadline. */
  readonly isLeader: boolean;
  /**
   * While the node is a leader whose lease lapsed (shown as `candidate` since a role update from
   * `leader`, until it is re-validated or leaves leadership): since when (local time), else `undefined`.
   */
  readonly lapsedSince?: number | undefined;
  /** The id of the leader the node follows or is, if any. */
  readonly leader: string | undefined;
  /** Whether the node's id is in the member list it sees. */
  readonly listed: boolean;
  readonly store: StoreHealth;
  /** Local time now, on the clock the store's health was recorded on. */
  readonly now: number;
  readonly timeoutMs: number;
  readonly intervalMs: number;
}

/** A probe's answer: `ok`, or not with a reason. */
export interface ProbeResult {
  readonly ok: boolean;
  /** Why not (or `"ok"`), one short sentence. */
  readonly reason: string;
}

/**
 * `/healthz`, liveness: the node's loops are running. Unhealthy when the node stopped (or is
 * stopping), when it calls itself leader but its lease has been out for more than T while the
 * store answers (it cannot renew although it could: as client-go's `HealthzAdaptor` checks, with
 * a tolerance; a lease lost to a store outage is re-validated when the store returns, so the
 * outage alone never fails this probe), or when it has started no store
 * operation for T (its loops stalled; a node whose store is down still tries every interval, so
 * an outage of the store alone never fails this probe). Healthy while it connects and before it
 * starts.
 */
export function liveness(p: ProbeInput): ProbeResult {
  if (p.state === 'connecting') return { ok: true, reason: 'connecting to the store' };
  if (p.state === 'idle') return { ok: true, reason: 'the node has not started yet' };
  if (p.state !== 'running') return { ok: false, reason: `the node is ${p.state}` };
  const answering = p.store.lastSuccessAt !== undefined && p.now - p.store.lastSuccessAt <= p.intervalMs;
  if (!p.isLeader && p.lapsedSince !== undefined && p.now - p.lapsedSince > p.timeoutMs && answering) {
    return { ok: false, reason: `the leader has not re-validated its lease for ${Math.round(p.now - p.lapsedSince)} ms although the store answers` };
  }
  const started = p.store.lastStartedAt;
  const stall = Math.max(p.timeoutMs, 3 * p.intervalMs);
  if (started !== undefined && p.now - started > stall) {
    return { ok: false, reason: `no store operation started for ${Math.round(p.now - started)} ms: the node's loops have stalled` };
  }
  return { ok: true, reason: 'ok' };
}

/** Why a node that does not run is not ready, where "the node is <state>" would not say it. */
const NOT_RUNNING: Readonly<Record<string, string>> = { connecting: 'connecting to the store', idle: 'the node has not started yet' };

/**
 * `/readyz`, readiness: the node reaches the store (an operation succeeded within the last T),
 * knows a leader, and is a member (listed by the leader) or the leader itself (an observer, which
 * is never listed, only needs the first two).
 */
export function readiness(p: ProbeInput): ProbeResult {
  if (p.state !== 'running') return { ok: false, reason: NOT_RUNNING[p.state] ?? `the node is ${p.state}` };
  const success = p.store.lastSuccessAt;
  if (success === undefined || p.now - success > p.timeoutMs) {
    const last = p.store.lastError ? `: ${p.store.lastError.kind}: ${p.store.lastError.message}` : '';
    const since = success === undefined ? 'ever' : `for ${Math.round(p.now - success)} ms`;
    return { ok: false, reason: `the store has not answered ${since}${last}` };
  }
  if (p.leader === undefined) return { ok: false, reason: 'no leader known' };
  if (p.role === 'observer') return { ok: true, reason: 'ok' };
  if (p.lapsedSince !== undefined) return { ok: false, reason: 'the leader’s lease ran out (re-validating)' };
  if (p.role === 'leader') return p.isLeader ? { ok: true, reason: 'ok' } : { ok: false, reason: 'the leader’s lease ran out' };
  if (!p.listed) return { ok: false, reason: `not (yet) a member of ${p.leader}'s list` };
  return { ok: true, reason: 'ok' };
}

import type { Scenario, Step, Timing } from './Scenario.js';

/**
 * How the nodes of a scenario see the store:
 * - `'shared'`: every fault hits every node alike (outages, keys unavailable to all, pauses,
 *   crashes, data loss, garbage), so at any instant a key is readable by all nodes or by none;
 * - `'per-node'`: some fault is limited to one node (a stale routing table among them), or
 *   operations meet random fates (failures, latency), so two nodes may see different things at
 *   the same instant.
 */
export type Views = 'shared' | 'per-node';

/** The {@link Views} of a scenario. */
export function viewsOf(scenario: Scenario): Views {
  const divergent = scenario.steps.some(
    (s) =>
      s.do === 'failures' ||
      s.do === 'latency' ||
      s.do === 'capacity' ||
      s.do === 'connections' ||
      s.do === 'staleRouting' ||
      ((s.do === 'keyUnavailable' || s.do === 'storeOutage') && s.node !== undefined) ||
      (s.do === 'storeOutage' && (s.flakyMs ?? 0) > 0),
  );
  return divergent ? 'per-node' : 'shared';
}

/**
 * True when the store loses writes in `scenario`: a flush (all data), garbage written over a
 * leader-key value (that key's broadcast), or a leader or era key back with its old data. A node may then never see a publication that another
 * node made, which is outside what self-fencing can promise (docs/protocol.md): measured, not asserted.
 */
export function losesData(scenario: Scenario): boolean {
  return scenario.steps.some(
    (s) =>
      s.do === 'flush' ||
      (s.do === 'garbage' && s.key.startsWith('leader ')) ||
      (s.do === 'keyRollback' && (s.keys.startsWith('leader ') || s.keys.startsWith('era '))),
  );
}

/**
 * When a step stops acting on the cluster: its time for an instant action (start, stop, crash,
 * restart, flush, garbage), the end of its window for a fault or pause, plus the longest an
 * operation it delayed or stalled may still be in flight.
 */
export function stepEnd(step: Step): number {
  switch (step.do) {
    case 'pause':
    case 'staleRouting':
      return step.at + step.forMs;
    case 'keyUnavailable':
      return step.at + step.forMs + (step.stallMs ?? 0);
    case 'storeOutage':
      return step.at + step.forMs + (step.stallMs ?? 0) + (step.flakyMs ?? 0);
    case 'keyRollback':
      return step.at + step.forMs + (step.flakyMs ?? 0);
    case 'failures':
      return step.at + step.forMs;
    case 'latency':
      return step.at + step.forMs + step.maxMs;
    case 'capacity':
      // The queue left at its end is served after it: operations applied up to `maxQueueMs` late.
      return step.at + step.forMs + step.maxQueueMs;
    case 'connections':
      // Operations that got a connection are applied up to `serviceMs` after it ends.
      return step.at + step.forMs + step.serviceMs;
    case 'redeploy':
      // The node comes back `downMs` after it stopped, which takes up to the leader's work bound (T).
      return step.at + (step.downMs ?? 0);
    default:
      return step.at;
  }
}

/** The time from which nothing disturbs the cluster any more: the latest {@link stepEnd}. */
export function quietAt(scenario: Scenario): number {
  return scenario.steps.reduce((latest, step) => Math.max(latest, stepEnd(step)), 0);
}

/**
 * The convergence bound checked after the last fault: **2T + 6I**. Derivation (docs/protocol-rationale.md,
 * "Convergence after the last fault"): the debris of the last fault goes still within I (every
 * live node re-reads the window each interval) and stale T later (T + 2I for a dead candidate's
 * claim); a candidate claims at once and confirms after the settle time (≤ I), so a leader is
 * elected by T + 4I; it inherits the member list it followed, so a member
 * that died in the last fault is dropped after T without PING, at its next cycle (≤ I), and every
 * node reads that publication within I: T + 2I more. A live node missing from the list (its join
 * was lost with a dying leader or the store's data) appends again within max(T, 3I) and is listed
 * everywhere 3I later, which fits in the same budget.
 */
export function convergenceBound(timing: Timing): number {
  return 2 * timing.timeoutMs + 6 * timing.intervalMs;
}

/**
 * How long a run goes on: until the quiet time, plus the convergence bound, plus T more to see
 * the converged state hold.
 */
export function runLength(scenario: Scenario): number {
  return quietAt(scenario) + convergenceBound(scenario.timing) + scenario.timing.timeoutMs;
}

import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';

/** What followed a store outage longer than T, for every node. */
export interface OutageOutcome {
  /** When the outage began, and when the store was back (its end, plus the longest stall). */
  readonly at: number;
  readonly returnedAt: number;
  /** ms from the store's return to the first instant with exactly one node having `isLeader()` true (`undefined`: never). */
  readonly oneLeaderAfterMs: number | undefined;
  /** How long after its return the store's operations failed at random (the outage's `flakyMs`; 0: none). */
  readonly flakyMs: number;
}

/**
 * The outcome of the run's outage when the run is a pure store-outage run: only `start` steps and
 * exactly one `storeOutage` for every node, longer than T, of a converged cluster with one leader
 * at that time, and possibly outages of single nodes from the same instant that end up to I later
 * (their clients reconnect later). The store's return is when it is back for every node, before
 * the random failures of its `flakyMs`, if any. `undefined` for every other run.
 */
export function storeReturn(run: Run): OutageOutcome | undefined {
  if (run.dataLoss) return undefined;
  const { intervalMs: I, timeoutMs: T } = run.scenario.timing;
  const steps = run.history.appliedSteps();
  if (steps.some((s) => s.do !== 'storeOutage' && s.do !== 'start')) return undefined;
  const outages = steps.flatMap((s) => (s.do === 'storeOutage' ? [s] : []));
  const shared = outages.filter((s) => s.node === undefined);
  if (shared.length !== 1) return undefined;
  const outage = shared[0]!;
  const end = (s: (typeof outages)[number]): number => s.at + s.forMs + (s.stallMs ?? 0);
  const flakyMs = Math.max(...outages.map((s) => s.flakyMs ?? 0));
  // Clients reconnect at different times: an outage of single nodes may start with the store's and
  // end up to I after it (that node's connection comes back later).
  const stragglers = outages.filter((s) => s !== outage);
  if (stragglers.some((s) => s.at !== outage.at || end(s) < end(outage) || end(s) > end(outage) + I)) return undefined;
  if (outage.forMs <= T || steps.some((s) => s.do === 'start' && s.at > outage.at)) return undefined;
  const before = run.history.samples.filter((s) => s.at <= outage.at).at(-1);
  if (!before?.converged || before.leaders.length !== 1) return undefined;
  const returnedAt = Math.max(...outages.map(end));
  const first = run.history.samples.find((s, i) => s.leaders.length === 1 && (s.at >= returnedAt || (run.history.samples[i + 1]?.at ?? Infinity) > returnedAt));
  return { at: outage.at, returnedAt, oneLeaderAfterMs: first === undefined ? undefined : Math.max(0, first.at - returnedAt), flakyMs };
}

/**
 * A store that comes back after an outage longer than T, for every node, has one leader again
 * within T + 2I of its return (the failover bound, counted from the return): the old leader
 * re-validates its lease, or another node, which saw the broadcast unchanged across the outage on
 * every nonce, leads. Checked on pure store-outage runs only (see {@link storeReturn}), when the
 * run lasts T + 2I after the return.
 */
export const outageRecovery: Property = {
  name: 'outage-recovery',
  summary: 'after a store outage longer than T, for every node, one leader leads again within T + 2I of the return',
  check(run) {
    const o = storeReturn(run);
    // A store whose operations fail at random after its return promises nothing by a bound: measured
    // (sim/test/outages.test.ts), not asserted.
    if (!o || o.flakyMs > 0) return [];
    const { intervalMs: I, timeoutMs: T } = run.scenario.timing;
    const bound = T + 2 * I;
    if (run.history.end < o.returnedAt + bound) return [];
    const violations: Violation[] = [];
    if (o.oneLeaderAfterMs === undefined || o.oneLeaderAfterMs > bound) {
      const what = o.oneLeaderAfterMs === undefined ? 'no leader since' : `one leader only ${o.oneLeaderAfterMs} ms after`;
      violations.push({ property: 'outage-recovery', at: o.returnedAt, message: `the store was out from ${o.at} ms and back at ${o.returnedAt} ms: ${what} its return (bound T + 2I = ${bound})` });
    }
    return violations;
  },
};

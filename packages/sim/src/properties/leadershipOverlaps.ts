import { resolveCheckOptions, twoLeaders } from '@roster/verify';
import { toVerifyHistory } from '../history/toVerifyHistory.js';
import type { Run } from '../runtime/Simulation.js';

/** A moment when more than one node led, as a property reports it. */
export interface Overlap {
  readonly at: number;
  readonly message: string;
}

/**
 * Every moment two or more nodes had `isLeader()` true at once: each stretch between samples with
 * several leaders, and each instant a node became leader while another still was (an overlap of
 * zero length, which samples cannot show).
 */
export function isLeaderOverlaps(run: Run): Overlap[] {
  const { samples, end, overlaps } = run.history;
  const found: Overlap[] = [];
  samples.forEach((s, i) => {
    if (s.leaders.length < 2) return;
    const until = samples[i + 1]?.at ?? end;
    found.push({ at: s.at, message: `${s.leaders.join(' and ')} all had isLeader() true from ${s.at} to ${until} ms` });
  });
  for (const o of overlaps) found.push({ at: o.at, message: `${o.leaders.join(' and ')} had isLeader() true at the same instant ${o.at} ms` });
  return found;
}

/**
 * Every moment a node was *reported* as leader (its last `role` update said `leader`) while
 * another still was, as a user reading the role updates would have been told: `@roster/verify`'s
 * `two-leaders` rule on the run's updates, in the order they happened (an overlap of zero length
 * at one virtual instant counts). A paused simulated node still reports its lease lapsing, and a
 * crash shows as the node's own `destroyed` role update: neither needs the excuses of real runs.
 */
export function reportedOverlaps(run: Run): Overlap[] {
  const converted = toVerifyHistory(run);
  const history = { ...converted, faults: converted.faults.filter((f) => f.kind !== 'kill') };
  const options = resolveCheckOptions(history, { simultaneity: 'in-order', excusePauses: false });
  return twoLeaders.check(history, options).map((v) => ({ at: v.at, message: v.message }));
}

import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';

/** Total virtual time during which two or more nodes had `isLeader()` true at once. */
export function dualLeadershipTime(run: Run): number {
  const { samples, end } = run.history;
  let total = 0;
  samples.forEach((s, i) => {
    if (s.leaders.length >= 2) total += (samples[i + 1]?.at ?? end) - s.at;
  });
  return total;
}

/**
 * Self-fencing: with a shared view of a store that keeps its writes, no two nodes have
 * `isLeader()` true at the same virtual instant (not even for zero time). With per-node views, or
 * when the store loses writes (a flush, garbage over a broadcast), this cannot be promised; the
 * time is measured instead ({@link dualLeadershipTime}).
 */
export const selfFencing: Property = {
  name: 'self-fencing',
  summary: 'with a shared view of a store that keeps its writes, no two nodes have isLeader() true at the same instant',
  check(run) {
    if (run.views !== 'shared' || run.dataLoss) return [];
    const violations: Violation[] = [];
    const { samples, end, overlaps } = run.history;
    samples.forEach((s, i) => {
      if (s.leaders.length < 2) return;
      const until = samples[i + 1]?.at ?? end;
      violations.push({ property: 'self-fencing', at: s.at, message: `${s.leaders.join(' and ')} all had isLeader() true from ${s.at} to ${until} ms` });
    });
    for (const o of overlaps) {
      violations.push({ property: 'self-fencing', at: o.at, message: `${o.leaders.join(' and ')} had isLeader() true at the same instant ${o.at} ms` });
    }
    return violations;
  },
};

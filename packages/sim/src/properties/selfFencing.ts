import type { Run } from '../runtime/Simulation.js';
import { isLeaderOverlaps } from './leadershipOverlaps.js';
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
    return isLeaderOverlaps(run).map((o): Violation => ({ property: 'self-fencing', ...o }));
  },
};

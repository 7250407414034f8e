import type { Run } from '../runtime/Simulation.js';
import { reportedOverlaps } from './leadershipOverlaps.js';
import type { Property, Violation } from './Property.js';

/**
 * Reported leadership: what a subscriber is told is what holds. Checked on every node's `role`
 * updates, as a user (a sidecar's JSON stream, a `watch()` function) receives them:
 *
 * - with a shared view of a store that keeps its writes, at most one node is *reported* as leader
 *   at any instant (its last `role` update says `leader`), not even for zero time;
 * - a running node's updates agree with `isLeader()` at every instant the simulator looks (after
 *   each instant's timers): a reported leadership ends no later than the lease deadline, and a
 *   lease that holds again is announced (a paused node tells nothing, and is excused meanwhile).
 *
 * The fencing tokens of reported leaderships are checked by `monotonic`, which reads them from
 * the same updates.
 */
export const reportedLeadership: Property = {
  name: 'reported-leadership',
  summary: "a node's role updates say leader exactly while its lease holds, and at most one node is reported as leader at once",
  check(run) {
    const violations: Violation[] = [];
    for (const m of run.history.misreports) {
      const told = m.shown === 'leader' ? 'still said leader though its lease no longer held' : `said ${m.shown ?? 'nothing'} though its lease held`;
      violations.push({ property: 'reported-leadership', at: m.at, message: `${m.node}'s updates ${told}` });
    }
    if (run.views !== 'shared' || run.dataLoss) return violations;
    return [...violations, ...reportedOverlaps(run).map((o): Violation => ({ property: 'reported-leadership', ...o }))];
  },
};

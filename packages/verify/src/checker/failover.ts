import type { Rule, Violation } from './Rule.js';
import { leaderAt, nextLeader, reachableOthers, TAKE_OUT_KINDS } from './internal/leading.js';
import { around, leaderReports } from './internal/reports.js';

/**
 * Failover: a leader taken out (SIGKILL, SIGSTOP, SIGTERM, or its link to the store cut, reset or
 * made to lose replies) is replaced within T + 2I ({@link CheckOptions.failoverBoundMs}): another
 * node reports leader by then. Required only when the fault lasted that long, the run went on that
 * long, and another node that could take over was running and untouched by any fault meanwhile.
 */
export const failover: Rule = {
  name: 'failover',
  summary: 'a crashed or cut leader is replaced within T + 2I when a live reachable node exists',
  check(history, options) {
    const bound = options.failoverBoundMs;
    const reports = leaderReports(history, { ...options, excusePauses: false });
    const violations: Violation[] = [];
    for (const f of history.faults) {
      if (!TAKE_OUT_KINDS.includes(f.kind) || f.to - f.from < bound || history.end < f.from + bound) continue;
      if (leaderAt(reports, f.from, [f.target]) === undefined) continue;
      const others = reachableOthers(history, f.target, f.from, f.from + bound);
      if (others.length === 0) continue;
      const next = nextLeader(reports, f.target, f.from);
      if (next !== undefined && next.from.at - f.from <= bound) continue;
      const took = next === undefined ? 'no other node reported leader to the end of the run' : `${next.node} reported leader only ${next.from.at - f.from} ms after`;
      violations.push({
        rule: 'failover',
        at: f.from + bound,
        message: `${f.target} led when it was taken out (${f.kind}) at ${f.from} ms, and ${took}, over the bound of ${bound} ms, though ${others.join(', ')} could take over`,
        around: around(history, f.from + bound, undefined, 12),
      });
    }
    return violations;
  },
};

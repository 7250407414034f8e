import type { History } from '../history/History.js';
import type { Rule, Violation } from './Rule.js';
import { convergenceSpans } from './internal/convergence.js';
import { around } from './internal/reports.js';

/**
 * When the last fault ended: from then on nothing disturbs the nodes (the run's start when there
 * was none). A node killed and never started again is gone for good at its SIGKILL: the cluster
 * is judged without it from then on.
 */
export function quietAt(history: Pick<History, 'faults' | 'start' | 'end'>): number {
  return Math.max(history.start, ...history.faults.map((f) => (f.kind === 'kill' && f.to >= history.end ? f.from : f.to)));
}

/**
 * Recovery: once the last fault has ended, within the documented bound 2T + 6I
 * ({@link CheckOptions.recoveryBoundMs}) every live node follows one leader (same id, era and
 * nonce, a live node that reports itself leader) and lists exactly the live non-observer nodes as
 * members, and stays so to the end of the run, as the nodes' own lines tell it. Not judged when
 * the run ended before the bound and had not converged yet.
 */
export const recovery: Rule = {
  name: 'recovery',
  summary: 'after the last fault, within 2T + 6I, every live node follows one leader with the full member list, for good',
  check(history, options) {
    const quiet = quietAt(history);
    const bound = options.recoveryBoundMs;
    const spans = convergenceSpans(history);
    const last = spans.at(-1)!;
    const violations: Violation[] = [];
    if (!last.converged && history.end >= quiet + bound) {
      violations.push({
        rule: 'recovery',
        at: history.end,
        message: `not converged at the end of the run (${history.end - quiet} ms after the last fault ended at ${quiet} ms; bound ${bound} ms): not every live node followed one leader with the full member list`,
        around: around(history, history.end),
      });
    } else if (last.converged && last.from - quiet > bound) {
      violations.push({
        rule: 'recovery',
        at: quiet + bound,
        message: `converged for good only ${last.from - quiet} ms after the last fault ended at ${quiet} ms, over the bound of ${bound} ms`,
        around: around(history, quiet + bound),
      });
    }
    return violations;
  },
};

import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';
import { describeViews, viewsAt } from './timeline.js';

/**
 * How long after the quiet time the cluster took to converge for good: the start of the last
 * stretch of converged samples, minus `run.quietAt` (0 when it was converged before). `undefined`
 * when it was not converged at the end of the run.
 */
export function convergenceTime(run: Run): number | undefined {
  const samples = run.history.samples;
  let k = samples.length;
  while (k > 0 && samples[k - 1]!.converged) k--;
  if (k === samples.length) return undefined;
  return Math.max(0, samples[k]!.at - run.quietAt);
}

/**
 * Convergence: within the bound after the last fault (2T + 6I, see `convergenceBound`), every live
 * node follows one leader (same id, era and nonce) whose `isLeader()` is true, every live node's
 * member list is exactly the live nodes that join, and it stays so to the end of the run.
 */
export const convergence: Property = {
  name: 'convergence',
  summary: 'after the last fault, within 2T + 6I, every live node follows one leader and lists exactly the live members, for good',
  check(run) {
    const took = convergenceTime(run);
    const end = run.history.end;
    const bound = run.bound;
    const violations: Violation[] = [];
    if (took === undefined) {
      violations.push({
        property: 'convergence',
        at: end,
        message: `not converged at the end of the run (${end - run.quietAt} ms after the last fault, bound ${bound} ms): ${describeViews(viewsAt(run.history, end), end)}`,
      });
    } else if (took > bound) {
      const at = run.quietAt + bound;
      violations.push({
        property: 'convergence',
        at,
        message: `converged ${took} ms after the last fault, over the bound of ${bound} ms; at the bound: ${describeViews(viewsAt(run.history, at), at)}`,
      });
    }
    return violations;
  },
};

import type { Property } from './Property.js';

/**
 * Well-behaved: no timer callback of a node throws (the house rule), and no node spins (runs more
 * than `SPIN_LIMIT` timer callbacks at one virtual instant, so that time never moves on).
 */
export const wellBehaved: Property = {
  name: 'well-behaved',
  summary: 'no timer callback throws and no node spins at one virtual instant',
  check(run) {
    return run.history.entries.flatMap((e) =>
      e.kind === 'anomaly' ? [{ property: 'well-behaved' as const, at: e.at, message: `${e.node === undefined ? '' : `${e.node}: `}${e.message}` }] : [],
    );
  },
};

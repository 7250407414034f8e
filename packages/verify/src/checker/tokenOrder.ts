import type { History } from '../history/History.js';
import type { ResolvedCheckOptions } from './CheckOptions.js';
import type { Rule, Violation } from './Rule.js';
import { around } from './internal/reports.js';

/** A leadership as it began: a node's `leader` line naming itself while its last `role` line says leader. */
export interface Leadership {
  readonly at: number;
  readonly node: string;
  readonly era: number;
  readonly nonce: number;
  readonly token: bigint;
}

/** Every leadership of the history, in the order they began (a new era or nonce of a leading node is a new leadership). */
export function leaderships(history: History): Leadership[] {
  const roles = new Map<string, string>();
  const current = new Map<string, string>();
  const found: Leadership[] = [];
  for (const { node, at, event: e } of history.observations) {
    if (e.event === 'role') {
      roles.set(node, e.role);
      if (e.role !== 'leader') current.delete(node);
    } else if (e.event === 'stopped') {
      roles.delete(node);
      current.delete(node);
    } else if (e.event === 'leader' && e.leader !== null && e.leader === e.id && roles.get(node) === 'leader' && e.token !== null) {
      const key = `${e.era}/${e.nonce}`;
      if (current.get(node) === key) continue;
      current.set(node, key);
      found.push({ at, node, era: e.era ?? 0, nonce: e.nonce ?? 0, token: BigInt(e.token) });
    }
  }
  return found;
}

/**
 * Leaderships whose token is not above every earlier one's, each with the earlier one it fell to
 * or below. A drop is excused when a fault of one of `options.dataLossKinds` began between the two
 * (the store lost the record of the higher era): the count starts over from the later one.
 */
export function tokenInversions(history: History, options: Pick<ResolvedCheckOptions, 'dataLossKinds'>): { earlier: Leadership; later: Leadership }[] {
  const losses = history.faults.filter((f) => options.dataLossKinds.includes(f.kind)).map((f) => f.from);
  const inversions: { earlier: Leadership; later: Leadership }[] = [];
  let top: Leadership | undefined;
  for (const l of leaderships(history)) {
    if (top !== undefined && l.token <= top.token) {
      const since = top.at;
      if (losses.some((at) => at >= since && at <= l.at)) top = l;
      else inversions.push({ earlier: top, later: l });
      continue;
    }
    top = l;
  }
  return inversions;
}

/**
 * Token order: the fencing token strictly increases from one leadership to the next, across all
 * nodes (unless the store lost its data in between; see {@link CheckOptions.dataLossKinds}). A
 * resource fenced by these tokens would otherwise refuse the new leader or accept the old one.
 */
export const tokenOrder: Rule = {
  name: 'token-order',
  summary: "each new leadership's fencing token is above every earlier leadership's",
  check(history, options) {
    return tokenInversions(history, options).map(({ earlier, later }): Violation => ({
      rule: 'token-order',
      at: later.at,
      message: `${later.node} began leading at ${later.at} ms with token ${later.token} (era ${later.era}, nonce ${later.nonce}), not above ${earlier.node}'s token ${earlier.token} (era ${earlier.era}, nonce ${earlier.nonce}, at ${earlier.at} ms)`,
      around: [...around(history, earlier.at, [earlier.node], 3), ...around(history, later.at, [later.node], 3)].sort((a, b) => a.at - b.at),
    }));
  },
};

import type { Rule, Violation } from './Rule.js';
import { around, compare, leaderReports, type LeaderReport } from './internal/reports.js';

/** Every pair of leader reports of two nodes that overlap, each with the instant the overlap began and its length. */
export function leaderOverlaps(reports: readonly LeaderReport[], inOrder: boolean): { a: LeaderReport; b: LeaderReport; at: number; ms: number }[] {
  const found: { a: LeaderReport; b: LeaderReport; at: number; ms: number }[] = [];
  for (let i = 0; i < reports.length; i++) {
    for (let j = i + 1; j < reports.length; j++) {
      const a = reports[i]!;
      const b = reports[j]!;
      if (a.node === b.node) continue;
      // Half-open stretches [from, to): one that ends as another begins does not overlap it.
      if (compare(a.from, b.to, inOrder) < 0 && compare(b.from, a.to, inOrder) < 0) {
        const at = Math.max(a.from.at, b.from.at);
        found.push({ a, b, at, ms: Math.min(a.to.at, b.to.at) - at });
      }
    }
  }
  return found.sort((x, y) => x.at - y.at);
}

/**
 * Two leaders: at no instant do two nodes report `leader`. A node reports leader from its
 * `role leader` line until its next `role` line, its `stopped` line or the SIGKILL of its process
 * (see {@link CheckOptions.excusePauses} for a paused process, which cannot print). What a user
 * reading every node's lines would be told is what counts, not what the nodes believed.
 */
export const twoLeaders: Rule = {
  name: 'two-leaders',
  summary: 'at no instant do two nodes report leader',
  check(history, options) {
    const inOrder = options.simultaneity === 'in-order';
    return leaderOverlaps(leaderReports(history, options), inOrder).map(({ a, b, at, ms }): Violation => {
      const [first, second] = a.from.at <= b.from.at ? [a, b] : [b, a];
      const length = ms > 0 ? `for ${ms} ms` : 'at the same instant';
      return {
        rule: 'two-leaders',
        at,
        message: `${second.node} reported leader at ${second.from.at} ms while ${first.node} still reported leader (since ${first.from.at} ms): two leaders ${length}`,
        around: around(history, at, [a.node, b.node]),
      };
    });
  },
};

import type { Rule, Violation } from './Rule.js';
import { around } from './internal/reports.js';

/**
 * Fenced write: the run's register keeps the highest token it has seen and refuses a write with a
 * lower one (the fencing pattern). An accepted write whose token is below the highest token seen
 * before it (as the register said, or as the accepted writes before it show) is a violation: a
 * deposed leader's write got through. Writes with the highest token itself are the same
 * leadership writing again, and are accepted.
 */
export const fencedWrite: Rule = {
  name: 'fenced-write',
  summary: 'a write fenced by a token below the highest seen is refused by the register',
  check(history) {
    const violations: Violation[] = [];
    let highest = 0n;
    for (const w of history.writes) {
      const token = BigInt(w.token);
      const seen = BigInt(w.highestSeen) > highest ? BigInt(w.highestSeen) : highest;
      if (w.accepted && token < seen) {
        violations.push({
          rule: 'fenced-write',
          at: w.at,
          message: `the register accepted ${w.node}'s write at ${w.at} ms with token ${token}, below the highest token seen ${seen}: a deposed leader's write got through`,
          around: around(history, w.at, [w.node]),
        });
      }
      if (w.accepted && token > highest) highest = token;
    }
    return violations;
  },
};

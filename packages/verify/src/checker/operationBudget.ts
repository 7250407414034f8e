import type { Rule, Violation } from './Rule.js';

/**
 * The most store commands one node may issue within an interval I: this many, and
 * {@link COMMANDS_PER_MEMBER} more for each node (a leader's PONG workers answer every follower).
 * Above what the protocol needs in any state: the busiest is a candidate whose claim waits for a
 * read that covers a nonce below it, which reads the window (4 nonces) every settle time (I/10),
 * 40 commands, besides its PINGs, its era reads and its claim (docs/faults.md gives the busiest
 * measured); far below what a loop that does not wait issues.
 */
export const BASE_COMMANDS = 64;
/** See {@link BASE_COMMANDS}. */
export const COMMANDS_PER_MEMBER = 4;

/** The most store commands one node of a group of `nodes` may issue within one interval. */
export function commandsPerInterval(nodes: number): number {
  return BASE_COMMANDS + COMMANDS_PER_MEMBER * nodes;
}

/**
 * Operation budget: when the history knows each node's store operations over the run, no node
 * issued more than {@link commandsPerInterval} for every interval of the run. (The simulator,
 * which sees every command's time, checks the same budget within every window of I.)
 */
export const operationBudget: Rule = {
  name: 'operation-budget',
  summary: 'no node issues more store operations than the budget per interval allows',
  check(history) {
    if (history.operations === undefined) return [];
    const I = history.timing.intervalMs;
    const intervals = Math.max(1, Math.ceil((history.end - history.start) / I));
    const budget = commandsPerInterval(history.nodes.length) * intervals;
    const violations: Violation[] = [];
    for (const [node, count] of history.operations) {
      if (count > budget) {
        violations.push({
          rule: 'operation-budget',
          at: history.end,
          message: `${node} issued ${count} store operations over ${history.end - history.start} ms, over the budget of ${budget} (${commandsPerInterval(history.nodes.length)} per interval of ${I} ms)`,
          around: [],
        });
      }
    }
    return violations;
  },
};

import { commandsPerInterval } from '@roster/verify';
import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';

/**
 * The most store commands one node may issue within any interval I: `BASE_COMMANDS`, and
 * `COMMANDS_PER_MEMBER` more for each node of the scenario. One budget for simulated and real
 * runs: it lives in `@roster/verify` (its `operation-budget` rule), which says why.
 */
export { BASE_COMMANDS, COMMANDS_PER_MEMBER } from '@roster/verify';
/**
 * The most lines (info and above) one node may log within any interval I: each change of state is
 * logged once, and a node may go through several in one interval (a lease lapsed, re-validated,
 * then a graceful stop: 10 lines), but never one line per operation or per retry.
 */
export const LOG_LINES = 12;

/** The most events of one node found within a window of `windowMs`, and where that window starts. */
export function densest(times: readonly number[], windowMs: number): { count: number; at: number } {
  let best = { count: 0, at: 0 };
  let from = 0;
  for (let to = 0; to < times.length; to++) {
    while (times[to]! - times[from]! >= windowMs) from++;
    if (to - from + 1 > best.count) best = { count: to - from + 1, at: times[from]! };
  }
  return best;
}

/** Groups `items` by `key`, each group's times in order. */
function timesBy<T>(items: readonly T[], key: (item: T) => string, at: (item: T) => number): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const item of items) {
    const k = key(item);
    let times = groups.get(k);
    if (times === undefined) groups.set(k, (times = []));
    times.push(at(item));
  }
  for (const times of groups.values()) times.sort((x, y) => x - y);
  return groups;
}

/**
 * Operation budget: whatever the faults, no node (incarnation) issues more than `BASE_COMMANDS +
 * COMMANDS_PER_MEMBER × nodes` store commands, nor logs more than `LOG_LINES` lines, within any
 * interval. A loop that repeats faster than its interval without waiting (a livelock that moves
 * time on with each store round trip, which the spin guard cannot see) or a fault logged once per
 * retry breaks it.
 */
export const operationBudget: Property = {
  name: 'operation-budget',
  summary: 'no node issues more than a fixed number of store commands, nor logs more than a few lines, per interval',
  check(run) {
    const I = run.scenario.timing.intervalMs;
    const nodes = new Set(run.history.incarnations.map((i) => i.id)).size;
    const commands = commandsPerInterval(nodes);
    const violations: Violation[] = [];
    for (const [node, times] of timesBy(run.costs, (c) => c.incarnation, (c) => c.at)) {
      const worst = densest(times, I);
      if (worst.count > commands) violations.push({ property: 'operation-budget', at: worst.at, message: `${node} issued ${worst.count} store commands within ${I} ms from ${worst.at} ms (budget ${commands})` });
    }
    for (const [node, times] of timesBy(run.history.logs, (l) => l.node, (l) => l.at)) {
      const worst = densest(times, I);
      if (worst.count > LOG_LINES) violations.push({ property: 'operation-budget', at: worst.at, message: `${node} logged ${worst.count} lines within ${I} ms from ${worst.at} ms (budget ${LOG_LINES})` });
    }
    return violations;
  },
};

/** The worst of a run: the most commands and log lines of one node within an interval. */
export function worstPerInterval(run: Run): { commands: number; logLines: number } {
  const I = run.scenario.timing.intervalMs;
  const most = (groups: Map<string, number[]>): number => Math.max(0, ...[...groups.values()].map((times) => densest(times, I).count));
  return { commands: most(timesBy(run.costs, (c) => c.incarnation, (c) => c.at)), logLines: most(timesBy(run.history.logs, (l) => l.node, (l) => l.at)) };
}

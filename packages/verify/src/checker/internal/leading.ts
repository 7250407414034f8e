import type { FaultWindow, History } from '../../history/History.js';
import type { LeaderReport } from './reports.js';

/** Fault kinds that take a leader out (its process, or its link to the store): another node must then take over. */
export const TAKE_OUT_KINDS: readonly string[] = ['kill', 'pause', 'term', 'cut-silent', 'cut-reset', 'drop-replies'];

/** The node reporting leader at instant `at` (a report ended at `at` by the fault itself counts), among `nodes` when given. */
export function leaderAt(reports: readonly LeaderReport[], at: number, nodes?: readonly string[]): LeaderReport | undefined {
  return reports.find(
    (r) => (nodes === undefined || nodes.includes(r.node)) && r.from.at <= at && (at < r.to.at || (r.to.at === at && r.endedBy !== 'line' && r.endedBy !== 'end')),
  );
}

/** The first report of a node other than `node` that began after `at`. */
export function nextLeader(reports: readonly LeaderReport[], node: string, at: number): LeaderReport | undefined {
  return reports.find((r) => r.node !== node && r.from.at > at);
}

/** True when `f` touches `node` (or the store) at some time within [from, to]. */
function touches(f: FaultWindow, node: string, from: number, to: number): boolean {
  return (f.target === node || f.target === 'store') && f.from <= to && f.to >= from;
}

/**
 * The nodes other than `node` that could have taken over between `from` and `to`: running (a line
 * before `from`, no `stopped` before `to`), not observers, and untouched by any fault meanwhile
 * (nor the store).
 */
export function reachableOthers(history: History, node: string, from: number, to: number): string[] {
  return history.nodes.filter((n) => {
    if (n === node) return false;
    const lines = history.observations.filter((o) => o.node === n);
    const before = lines.filter((o) => o.at < from);
    if (before.length === 0) return false;
    const role = [...before].reverse().find((o) => o.event.event === 'role' || o.event.event === 'stopped');
    if (role?.event.event === 'stopped' || (role?.event.event === 'role' && role.event.role === 'observer')) return false;
    if (lines.some((o) => o.event.event === 'stopped' && o.at >= from && o.at <= to)) return false;
    return !history.faults.some((f) => touches(f, n, from, to));
  });
}

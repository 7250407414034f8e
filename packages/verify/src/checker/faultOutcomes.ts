import type { FaultWindow, History } from '../history/History.js';
import type { ResolvedCheckOptions } from './CheckOptions.js';
import { convergedFrom, convergenceSpans } from './internal/convergence.js';
import { leaderAt, nextLeader } from './internal/leading.js';
import { leaderReports } from './internal/reports.js';

/** What followed one fault, in ms. A field is absent when it does not apply or did not happen. */
export interface FaultOutcome {
  readonly fault: FaultWindow;
  /**
   * From the fault's start until the leader it hit (the target, or for a store fault whoever led)
   * stopped reporting leader by a line of its own. Like `failoverMs`, only what happened within
   * the failover bound after the fault's end counts.
   */
  readonly selfFenceMs?: number;
  /** From the fault's start until another node reported leader. */
  readonly failoverMs?: number;
  /** From the fault's end until every live node followed one leader with the full member list. */
  readonly recoveryMs?: number;
}

/** What followed each fault of `history`: self-fence, failover and recovery times. */
export function faultOutcomes(history: History, options: ResolvedCheckOptions): FaultOutcome[] {
  // A paused node's report is kept whole here: its self-fence is the line it prints on waking.
  const reports = leaderReports(history, { ...options, excusePauses: false });
  const spans = convergenceSpans(history);
  return history.faults.map((fault) => {
    const hit = leaderAt(reports, fault.from, fault.target === 'store' ? undefined : [fault.target]);
    const outcome: { -readonly [K in keyof FaultOutcome]: FaultOutcome[K] } = { fault };
    // What happened later than the failover bound after the fault ended did not follow from it.
    const until = fault.to + options.failoverBoundMs;
    if (hit !== undefined) {
      if (hit.endedBy === 'line' && hit.to.at <= until) outcome.selfFenceMs = hit.to.at - fault.from;
      const next = nextLeader(reports, hit.node, fault.from);
      if (next !== undefined && next.from.at <= until) outcome.failoverMs = next.from.at - fault.from;
    }
    const converged = convergedFrom(spans, fault.to);
    if (converged !== undefined && converged <= history.end) outcome.recoveryMs = converged - fault.to;
    return outcome;
  });
}

/**
 * `@roster/verify`: checks what Roster promises against what nodes actually reported.
 *
 * A {@link History} is every public line (`role`, `leader`, `members`, `stopped`) of every node
 * with the time it was seen, the fenced writes the run made to a register, and the fault windows
 * the nemesis opened. {@link checkHistory} applies one set of rules to it, the same rules the
 * simulator applies to its own histories: no two nodes report leader at once; fencing tokens rise
 * from one leadership to the next; a register refuses a deposed leader's write; a leader taken out
 * is replaced within T + 2I; after the faults the cluster converges within 2T + 6I; no node
 * exceeds its operation budget.
 *
 * @packageDocumentation
 */
export type { Observation, FencedWrite, FaultWindow, History, HistoryTiming } from './history/History.js';
export type { NodeEvent, RoleEvent, LeaderEvent, MembersEvent, StoppedEvent, NodeRole } from '@roster/client';
export { validateHistory, InvalidHistoryError } from './history/validateHistory.js';
export type { Rule, RuleName, Violation } from './checker/Rule.js';
export { RULE_NAMES, resolveCheckOptions, type CheckOptions, type ResolvedCheckOptions, type Simultaneity } from './checker/CheckOptions.js';
export { checkHistory, ruleByName, RULES, type CheckReport } from './checker/checkHistory.js';
export { faultOutcomes, type FaultOutcome } from './checker/faultOutcomes.js';
export { formatViolation, formatObservation } from './checker/formatViolation.js';
export { twoLeaders, leaderOverlaps } from './checker/twoLeaders.js';
export { tokenOrder, tokenInversions, leaderships, type Leadership } from './checker/tokenOrder.js';
export { fencedWrite } from './checker/fencedWrite.js';
export { failover } from './checker/failover.js';
export { recovery, quietAt } from './checker/recovery.js';
export { operationBudget, commandsPerInterval, BASE_COMMANDS, COMMANDS_PER_MEMBER } from './checker/operationBudget.js';
export { leaderReports, type LeaderReport, type Point } from './checker/internal/reports.js';

// The nemesis and the runner (`roster verify`): real nodes, real faults, then the checker.
export { runVerify, type CutReach, type Verdict, type VerifyOptions, type VerifyProgress, type VerifyResult } from './runVerify.js';
export { VerifyError } from './VerifyError.js';
export { formatReport, reportJson, INCONCLUSIVE_REASON, type ReportContext } from './report/formatReport.js';
export {
  buildSchedule,
  warmupMs,
  recoveryGapMs,
  FAULT_KINDS,
  LINK_FAULTS,
  PROCESS_FAULTS,
  STORE_FAULTS,
  CUT_FAULTS,
  type FaultKind,
  type PlannedFault,
  type ScheduleOptions,
} from './nemesis/Schedule.js';
export { FaultProxy, type LinkMode } from './nemesis/FaultProxy.js';
export { FencedRegister, type FencedRegisterOptions } from './nemesis/FencedRegister.js';
export type { StoreControl } from './nemesis/StoreControl.js';
export { adviseTiming, summarize, type RoundTripStats, type TimingAdvice } from './nemesis/RoundTrip.js';
export { defaultNodeCommand, type NodeCommandValues } from './nemesis/NodeLauncher.js';

/**
 * `@roster/cli`: the `roster` command line. The package is mostly its bin; these exports let a
 * program run the same commands (or add its own), read `roster node --json` and
 * `roster primary run --json` lines with types, and give its own nodes the metrics and probes of
 * `roster node --status-port` ({@link PromRosterMetrics}, {@link InstrumentedKV},
 * {@link watchNodeMetrics}, {@link liveness}, {@link readiness}).
 *
 * @packageDocumentation
 */
export { runCli, type RunCliOptions } from './runCli.js';
export { commands } from './commands/index.js';
export { processIO, type Command, type CliIO, type OutputStream, type StopSignal } from './commands/Command.js';
export { CliError, ExitCode } from './internal/CliError.js';
export { runNode, type NodeRunOptions } from './node/runNode.js';
export {
  toNodeEvent,
  formatJsonEvent,
  formatHumanEvent,
  type NodeEvent,
  type RoleEvent,
  type LeaderEvent,
  type MembersEvent,
  type StoppedEvent,
} from './node/nodeEvents.js';
export {
  noopMetrics,
  type RosterMetrics,
  type StoreOperation,
  type StoreErrorKind,
  type ElectionOutcome,
} from './metrics/RosterMetrics.js';
export { PromRosterMetrics, type PromRosterMetricsOptions } from './metrics/PromRosterMetrics.js';
export { InstrumentedKV, type InstrumentedKVOptions, type StoreHealth } from './metrics/InstrumentedKV.js';
export { watchNodeMetrics } from './metrics/watchNodeMetrics.js';
export { liveness, readiness, type ProbeInput, type ProbeResult } from './node/probes.js';
export { runDemo, DEMO_DEFAULTS, type DemoOptions } from './demo/runDemo.js';
export type { DemoSummary } from './demo/summary.js';
export { runPrimary, type PrimaryRunOptions } from './primary/runPrimary.js';
export { getPrimary, type PrimaryGetOptions, type PrimaryGetResult, type ExpiredPrimary } from './primary/getPrimary.js';
export type { PrimaryStoreOptions } from './primary/primaryConfig.js';
export {
  formatJsonPrimaryEvent,
  formatHumanPrimaryEvent,
  type PrimaryEvent,
  type PrimaryStartedEvent,
  type PrimarySeenEvent,
  type PrimaryActingEvent,
  type PrimaryStoppedActingEvent,
  type PrimaryStoppedEvent,
} from './primary/primaryEvents.js';

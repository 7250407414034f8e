/**
 * `@roster/cli`: the `roster` command line. The package is mostly its bin; these exports let a
 * program run the same commands ({@link runCli} with argv, or its own {@link Command}s), read the
 * JSON contracts with types (`roster node --json` lines: {@link NodeEvent}, the wire types of
 * `@roster/client`; `roster primary run --json` lines: {@link PrimaryEvent}; `roster primary get
 * --json`: {@link PrimaryGetResult}), and give its own nodes the metrics and probes of
 * `roster node --status-port` ({@link PromRosterMetrics}, {@link InstrumentedKV},
 * {@link watchNodeMetrics}, {@link liveness}, {@link readiness}).
 *
 * @packageDocumentation
 */
export { runCli, type RunCliOptions } from './runCli.js';
export { commands } from './commands/index.js';
export { processIO, type Command, type CliIO, type OutputStream, type StopSignal } from './commands/Command.js';
export { CliError, ExitCode } from './CliError.js';
export type { NodeEvent, RoleEvent, LeaderEvent, MembersEvent, StoppedEvent } from './node/nodeEvents.js';
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
export type {
  PrimaryEvent,
  PrimaryStartedEvent,
  PrimarySeenEvent,
  PrimaryActingEvent,
  PrimaryStoppedActingEvent,
  PrimaryStoppedEvent,
} from './primary/primaryEvents.js';
export type { PrimaryGetResult, ExpiredPrimary } from './primary/getPrimary.js';

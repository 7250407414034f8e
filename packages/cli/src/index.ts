/**
 * `@roster/cli`: the `roster` command line. The package is mostly its bin; these exports let a
 * program run the same commands ({@link runCli} with argv, or its own {@link Command}s) and read the
 * JSON contracts with types (`roster node --json` lines: {@link NodeEvent}, the wire types of
 * `@roster/client`; `roster primary run --json` lines: {@link PrimaryEvent}; `roster primary get
 * --json`: {@link PrimaryGetResult}). The metrics and probes of `roster node --status-port` are
 * `@roster/http`'s: a service mounts them on its own server from there.
 *
 * @packageDocumentation
 */
export { runCli, type RunCliOptions } from './runCli.js';
export { commands } from './commands/index.js';
export { processIO, type Command, type CliIO, type OutputStream, type StopSignal } from './commands/Command.js';
export { CliError, ExitCode } from './CliError.js';
export type { NodeEvent, RoleEvent, LeaderEvent, MembersEvent, StoppedEvent } from './node/nodeEvents.js';
export type {
  PrimaryEvent,
  PrimaryStartedEvent,
  PrimarySeenEvent,
  PrimaryActingEvent,
  PrimaryStoppedActingEvent,
  PrimaryStoppedEvent,
} from './primary/primaryEvents.js';
export type { PrimaryGetResult, ExpiredPrimary } from './primary/getPrimary.js';

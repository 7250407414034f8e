/**
 * `@roster/client`: a thin client of a local `roster node` daemon (the "client library
 * interface"). It reads the daemon's `/events` stream over plain HTTP and calls installed watch
 * functions with typed updates: a machine added or deleted, a goodbye before the leader changes,
 * the leader and the daemon's role, and the link going up or down.
 *
 * No runtime dependencies: only Node's own `node:http` and `node:events`. It neither loads
 * ioredis nor another Roster package; a test checks its production dependency closure.
 *
 * @packageDocumentation
 */
export { connectDaemon, type ConnectDaemonOptions } from './connectDaemon.js';
export type { DaemonClient } from './DaemonClient.js';
export type {
  DaemonUpdate,
  DaemonLeader,
  DaemonRole,
  WatchFunction,
  AddUpdate,
  DeleteUpdate,
  GoodbyeUpdate,
  LeaderUpdate,
  RoleUpdate,
  ConnectedUpdate,
  DisconnectedUpdate,
} from './DaemonUpdate.js';
export type { NodeEvent, NodeEventBase, NodeRole, RoleEvent, LeaderEvent, MembersEvent, StoppedEvent } from './wire.js';
export { ConfigError } from './ConfigError.js';
export { silentLogger, type Logger } from './Logger.js';
export type { Clock } from './Clock.js';

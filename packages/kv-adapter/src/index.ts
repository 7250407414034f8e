/**
 * `@roster/kv-adapter`: the storage layer of Roster.
 *
 * - {@link KV}: the one interface every package speaks (get, set, delete, append, take,
 *   compare-and-set, the store's clock), with typed errors that tell a key that cannot be served
 *   ({@link KeyUnavailableError}) from a store that cannot be reached ({@link StoreUnavailableError}).
 * - {@link CompoundKey}: `"<base> <nonce>"` keys that move when a key is unavailable.
 * - {@link Namespace}: a cluster key and environment as a key prefix.
 * - Backends: {@link MemoryKV} (embedded) and {@link RedisKV} (Redis, Redis Cluster); PostgresKV in
 *   the `@roster/kv-adapter/postgres` entry. {@link connectStore} opens any of them from a URL.
 * - The time seam: {@link Clock}, {@link RealClock}; one deadline helper ({@link deadline},
 *   {@link withDeadline}, {@link raceSignal}), {@link LocalDeadline}, and the typed emitter
 *   {@link UpdateStream}.
 * - The logging seam: {@link Logger}.
 *
 * Test doubles (`VirtualClock`, `FaultInjector`, `FaultyKV`, `MemoryLogger`, …) live in the
 * `@roster/kv-adapter/testing` entry.
 *
 * @packageDocumentation
 */
export {
  RosterError,
  KeyUnavailableError,
  StoreUnavailableError,
  StoreAccessError,
  InvalidKeyError,
  InvalidValueError,
  ValueTooLargeError,
  KVRejectedError,
  UnsupportedOperationError,
  KVClosedError,
  MissingDriverError,
  ConfigError,
  AbortError,
  type RosterErrorCode,
} from './errors.js';
export { type Logger, type LogLevel, LevelLogger, silentLogger } from './logger.js';
export { type Clock, type Timer, sleep, abortReason } from './clock/Clock.js';
export { deadline, withDeadline, raceSignal, type Deadline } from './util/deadline.js';
export { LocalDeadline } from './util/LocalDeadline.js';
export { UpdateStream } from './util/UpdateStream.js';
export { RealClock, realClock, type RealClockOptions } from './clock/RealClock.js';
export {
  type KV,
  type KVCapabilities,
  type KVOperationOptions,
  type SetOptions,
  type CompareAndSetOptions,
  type CompareAndSetResult,
  type KVLimits,
} from './KV.js';
export { MemoryKV, type MemoryKVOptions } from './MemoryKV.js';
export { probeAccess } from './probeAccess.js';
export {
  CompoundKey,
  type CompoundKeyOptions,
  DEFAULT_NONCE_WINDOW,
  isKeyFailure,
  readWindow,
  type ReadWindowOptions,
  writeMoving,
  type WindowSlot,
} from './CompoundKey.js';
export { Namespace } from './Namespace.js';
export { RedisKV, type RedisKVOptions, type RedisKVConnectOptions } from './RedisKV.js';
export {
  parseStoreUrl,
  redactStoreUrl,
  type ParsedStoreUrl,
  type ParsedSingleStoreUrl,
  type ParsedClusterStoreUrl,
  type ParsedSentinelStoreUrl,
  type StoreAddress,
} from './redis/parseStoreUrl.js';
export { connectStore, checkStoreUrl, type ConnectStoreOptions, type CheckedStoreUrl } from './connectStore.js';

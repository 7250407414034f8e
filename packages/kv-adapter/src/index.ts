/**
 * `@roster/kv-adapter`: the storage layer of Roster.
 *
 * - {@link KV}: the one interface every package speaks (get, set, delete, append, take,
 *   compare-and-set, the store's clock), with typed errors that tell a key that cannot be served
 *   ({@link KeyUnavailableError}) from a store that cannot be reached ({@link StoreUnavailableError}).
 * - {@link CompoundKey}: `"<base> <nonce>"` keys that move when a key is unavailable.
 * - {@link Namespace}: a group and environment as a key prefix.
 * - Backends: {@link MemoryKV} (embedded) here; each store with a driver behind its own entry, the
 *   driver an optional peer dependency: `RedisKV` in `@roster/kv-adapter/redis` (`ioredis`),
 *   `PostgresKV` in `@roster/kv-adapter/postgres` (`pg`), `EtcdKV` in `@roster/kv-adapter/etcd`
 *   (no driver). {@link connectStore} opens any of them from a URL, loading that backend's entry
 *   only then: this entry loads no driver.
 * - The time seam: {@link Clock}, {@link RealClock}.
 * - The logging seam: {@link Logger}.
 *
 * Test doubles (a virtual clock, fault injection) and local servers are the separate package
 * `@roster/testing`; the utilities the other Roster packages share are `@roster/kv-adapter/internal`
 * (no public API).
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
export { type Logger, type LogLevel, silentLogger } from './logger.js';
export { type Clock, type Timer } from './clock/Clock.js';
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
export { redactStoreUrl } from './backend/redactStoreUrl.js';
// The backends' URL types (no driver behind them); each backend's class and options are in its entry.
export type {
  ParsedStoreUrl,
  ParsedSingleStoreUrl,
  ParsedClusterStoreUrl,
  ParsedSentinelStoreUrl,
  StoreAddress,
} from './redis/parseStoreUrl.js';
export type { ParsedPostgresUrl, PostgresSslMode } from './postgres/parsePostgresUrl.js';
export type { ParsedMySQLUrl, MySQLSslMode } from './mysql/parseMySQLUrl.js';
export type { ParsedEtcdUrl, EtcdEndpoint } from './etcd/parseEtcdUrl.js';
export { connectStore, checkStoreUrl, type ConnectStoreOptions, type CheckedStoreUrl } from './connectStore.js';

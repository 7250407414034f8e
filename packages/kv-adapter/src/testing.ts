/**
 * `@roster/kv-adapter/testing`: the test doubles of Roster's storage layer, and a local Redis
 * Cluster. Nothing here is needed by a node in production; the main entry `@roster/kv-adapter`
 * exports none of it.
 *
 * - {@link VirtualClock}: a deterministic {@link Clock} whose time moves only when told to.
 * - {@link FaultInjector} and {@link FaultyKV}: a real store behind per-node views that inject
 *   unavailable keys, store outages, failures and latency, and log every operation.
 * - {@link MemoryLogger}: a logger that records what was logged.
 * - {@link SeededRandom}: the reproducible random source behind probabilistic faults.
 * - {@link LocalRedisCluster}: a real Redis Cluster of local `redis-server` processes, with
 *   replicas or not, whose servers can be killed, paused and restarted, whose masters can be
 *   failed over and whose slots can be migrated live; with the small helpers it is built on
 *   ({@link freeLoopbackPort}, {@link redisCommand}, {@link waitFor}).
 * - {@link LocalRedisSentinel}: a master, its replicas and three sentinels of local processes,
 *   whose master can be killed and failed over.
 * - {@link LocalPostgres}: a real PostgreSQL server in a temp directory, which can be shut down
 *   (fast or immediate), killed, paused, restarted, and have its backends terminated.
 *
 * @example
 * ```ts
 * import { MemoryKV } from '@roster/kv-adapter';
 * import { FaultInjector, VirtualClock } from '@roster/kv-adapter/testing';
 *
 * const clock = new VirtualClock();
 * const faults = new FaultInjector({ clock, seed: 1 });
 * const kv = faults.view(new MemoryKV({ clock }), 'a');
 * faults.storeOutage({ node: 'a', forMs: 1000 }); // kv rejects for one (virtual) second
 * ```
 *
 * @packageDocumentation
 */
export { VirtualClock, type VirtualClockOptions } from './clock/VirtualClock.js';
export { MemoryLogger, type LogEntry } from './testing/MemoryLogger.js';
export { FaultInjector } from './faults/FaultInjector.js';
export { FaultyKV } from './faults/FaultyKV.js';
export {
  type FaultInjectorOptions,
  type FaultScope,
  type KeyUnavailableOptions,
  type KeyRollbackOptions,
  type RollbackStore,
  type StoreOutageOptions,
  type FailureOptions,
  type LatencyOptions,
  type LatencyMode,
  type FaultHandle,
  type FaultKind,
  type FaultStats,
  type KVOperation,
} from './faults/FaultOptions.js';
export { type KeySelector } from './faults/keys.js';
export { type OperationRecord, formatOperation } from './faults/OperationLog.js';
export { SeededRandom } from './faults/random.js';
export {
  LocalRedisCluster,
  type LocalRedisClusterOptions,
  type LocalRedisShard,
  type LocalRedisFailoverMode,
  type LocalRedisClusterFailover,
  type LocalRedisKillMasterOptions,
  type LocalRedisSlotMigrationOptions,
  type LocalRedisSlotMigration,
} from './testing/localRedis/LocalRedisCluster.js';
export {
  LocalRedisSentinel,
  type LocalRedisSentinelOptions,
  type LocalRedisNode,
  type LocalRedisFailover,
} from './testing/LocalRedisSentinel.js';
export { LOOPBACK_HOST, freeLoopbackPort, type FreeLoopbackPortOptions } from './testing/localRedis/loopback.js';
export { redisCommand, type RedisCommandOptions } from './testing/localRedis/redisCommand.js';
export { waitFor, type WaitForOptions } from './testing/localRedis/waitFor.js';
export { LocalEtcd, type LocalEtcdOptions, type LocalEtcdMember, type LocalEtcdAuthOptions } from './testing/LocalEtcd.js';
export { LocalPostgres, type LocalPostgresOptions, type PostgresShutdownMode } from './testing/LocalPostgres.js';

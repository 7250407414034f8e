/**
 * `@roster/testing`: Roster's test doubles and local servers, for Roster's own tests, bench and
 * demo, and for a service's tests. The only Roster package that ships them: nothing here is needed
 * by a node in production, and no other package's runtime dependencies include this one. It needs
 * no Redis or PostgreSQL driver (it speaks to its Redis servers itself): a PostgreSQL user's tests
 * install no ioredis for it.
 *
 * - {@link VirtualClock}: a deterministic `Clock` whose time moves only when told to.
 * - {@link FaultInjector} and {@link FaultyKV}: a real store behind per-node views that inject
 *   unavailable keys, store outages, failures and latency, and log every operation.
 * - {@link MemoryLogger}: a logger that records what was logged.
 * - {@link SeededRandom}: the reproducible random source behind probabilistic faults.
 * - Local servers on the machine's own binaries, each in a temp directory on free loopback ports:
 *   {@link LocalRedis} (one `redis-server`), {@link LocalRedisCluster} (with replicas or not; its
 *   servers can be killed, paused and restarted, its masters failed over, its slots migrated live),
 *   {@link LocalRedisSentinel} (a master, its replicas and three sentinels), {@link LocalEtcd} (1 or
 *   3 members), {@link LocalPostgres} (`initdb` and a postmaster), {@link LocalPgBouncer} (in front of
 *   a LocalPostgres, in any pool mode), {@link LocalMariaDB}
 *   (`mariadb-install-db` and `mariadbd`), {@link LocalNats} (one `nats-server` with JetStream) and
 *   {@link LocalNatsCluster} (three, whose meta leader and stream leaders can be killed).
 * - {@link ServerProcess}: the one process-supervision fixture every server process above runs on
 *   (a process group of its own, awaited until it answers, SIGKILLed when this process exits); and
 *   the small helpers they share: {@link freeLoopbackPort}, {@link redisCommand}, {@link waitFor},
 *   {@link findRedisServer}.
 *
 * @example
 * ```ts
 * import { MemoryKV } from '@roster/kv-adapter';
 * import { FaultInjector, VirtualClock } from '@roster/testing';
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
export { MemoryLogger, type LogEntry } from './MemoryLogger.js';
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
  type CapacityOptions,
  type ConnectionsOptions,
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
} from './redis/LocalRedisCluster.js';
export {
  LocalRedisSentinel,
  type LocalRedisSentinelOptions,
  type LocalRedisNode,
  type LocalRedisFailover,
} from './redis/LocalRedisSentinel.js';
export { LocalRedis, type LocalRedisOptions } from './redis/LocalRedis.js';
export { findRedisServer } from './redis/findRedisServer.js';
export { redisCommand, type RedisCommandOptions } from './redis/redisCommand.js';
export { ServerProcess } from './process/ServerProcess.js';
export { LOOPBACK_HOST, freeLoopbackPort, type FreeLoopbackPortOptions } from './process/loopback.js';
export { waitFor, type WaitForOptions } from './process/waitFor.js';
export { LocalEtcd, type LocalEtcdOptions, type LocalEtcdMember, type LocalEtcdAuthOptions } from './etcd/LocalEtcd.js';
export { LocalPostgres, type LocalPostgresOptions, type PostgresShutdownMode } from './postgres/LocalPostgres.js';
export { LocalPgBouncer, type LocalPgBouncerOptions, type PgBouncerPoolMode } from './postgres/LocalPgBouncer.js';
export { LocalMariaDB, type LocalMariaDBOptions } from './mysql/LocalMariaDB.js';
export { LocalNats, type LocalNatsOptions } from './nats/LocalNats.js';
export { LocalNatsCluster, type LocalNatsClusterOptions, type LocalNatsClusterServer } from './nats/LocalNatsCluster.js';

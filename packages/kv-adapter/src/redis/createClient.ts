import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { ParsedStoreUrl } from './parseStoreUrl.js';
import { accessDenied } from '../backend/accessDenied.js';
import { connectSpacing } from '../backend/ConnectBackOff.js';
import { guardAsking } from './guardAsking.js';
import { reportingConnector, SafeConnector, SafeSentinelConnector } from './SafeConnector.js';

/** What {@link createClient} needs beyond the parsed URL. */
export interface ClientSettings {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: ConnectionOptions | undefined;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  /** Sentinel mode: the sentinels' own ACL user. */
  readonly sentinelUsername?: string | undefined;
  /** Sentinel mode: the sentinels' own password. */
  readonly sentinelPassword?: string | undefined;
}

/**
 * How long ioredis waits between cluster retries (`CLUSTERDOWN`, a closed node connection,
 * `TRYAGAIN`). With {@link CLUSTER_MAX_REDIRECTIONS} this bounds how long an operation on a key
 * whose shard is dead keeps trying before it fails (~0.1–0.3 s instead of ioredis' 16 × 100 ms).
 */
export const CLUSTER_RETRY_DELAY_MS = 50;
/** How many redirections or retries ioredis makes for one cluster command (ioredis: 16). */
export const CLUSTER_MAX_REDIRECTIONS = 4;
/**
 * How often a cluster client asks for the slot table on its own (`CLUSTER SLOTS` to one node), on
 * top of the refreshes a redirection or a lost node triggers: a client never routes by a map more
 * than about a second old, whatever it last sent. One command per client per second.
 */
export const CLUSTER_SLOTS_REFRESH_MS = 1000;

/**
 * Reconnection back-off of the whole client, the same as every backend's ({@link connectSpacing}):
 * 100 ms, 200 ms, 400 ms, then 500 ms, each less up to a quarter, forever. A store back after an
 * outage is found within 500 ms; a store that is down costs a client at most about 2.7
 * connection attempts a second, whatever the command timeout (it was one per command timeout:
 * 20 a second at I = 100 ms).
 */
function reconnectDelay(times: number): number {
  return Math.round(connectSpacing(times - 1));
}

/**
 * Creates an ioredis client (not yet connected) for a parsed store URL with Roster's fail-fast
 * settings:
 * - `maxRetriesPerRequest: 0` and `autoResendUnfulfilledCommands: false`: a command in flight when
 *   the connection drops fails at once and is never sent twice (an `APPEND` resent after a
 *   reconnect could append twice);
 * - `commandTimeout`: a hung server or shard fails the command instead of hanging it;
 * - the offline queue is on only until the first `ready` (the caller turns it off), so commands on
 *   a disconnected client fail at once instead of queueing without bound;
 * - `enableAutoPipelining` on a single server and under Sentinel: the commands issued in one
 *   event-loop turn (a leader's PONGs of one interval, a follower's PING and header read) leave as
 *   one pipeline: one round trip and one write syscall instead of one each;
 * - in cluster mode, **no autopipelining**: ioredis follows a `MOVED` or `ASK` inside a pipeline
 *   only when every reply of the pipeline failed the same way, so after a failover or during a
 *   resharding two keys of one shard read in one tick (`leader 0` and `leader 1`) came back as
 *   redirections, unfollowed; sent one by one, each command is redirected by ioredis itself (the
 *   slot map updated at once, `ASKING` sent for a migrating slot). The slot table is also refreshed
 *   every {@link CLUSTER_SLOTS_REFRESH_MS};
 * - in cluster mode, lowered `maxRedirections` and retry delays so a dead shard fails its keys fast,
 *   and a node's socket that refuses access (TLS verification, a refused client certificate) is
 *   reported as a `node error` event, which ioredis' slot refresh would hide;
 * - in Sentinel mode, ioredis' own Sentinel support: the master is asked of the sentinels at every
 *   (re)connection and checked with `INFO` (`role: 'master'`), a `+switch-master` announced by any
 *   sentinel drops the connection so the next one finds the new master (`failoverDetector`), and a
 *   `READONLY` reply (the master we talk to was demoted) drops it too (`reconnectOnError`, without
 *   resending the command: it fails, as every command in flight does).
 */
export function createClient(parsed: ParsedStoreUrl, settings: ClientSettings): Redis | Cluster {
  const common: RedisOptions = {
    ...(settings.username !== undefined && { username: settings.username }),
    ...(settings.password !== undefined && { password: settings.password }),
    ...(settings.tls !== undefined && { tls: settings.tls }),
    connectTimeout: settings.connectTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    enableAutoPipelining: true,
    Connector: SafeConnector,
  };
  if (parsed.mode === 'sentinel') {
    const backOff = reconnectDelay;
    // The first attempt after a loss is immediate: the failover detector drops a connection that
    // may already be on the new master, and the sentinels name the master anyway.
    const retryStrategy = (times: number): number => (times === 1 ? 0 : backOff(times - 1));
    return new Redis({
      ...common,
      Connector: SafeSentinelConnector,
      sentinels: parsed.sentinels.map(({ host, port }) => ({ host, port })),
      name: parsed.name,
      role: 'master',
      db: parsed.db,
      ...(settings.sentinelUsername !== undefined && { sentinelUsername: settings.sentinelUsername }),
      ...(settings.sentinelPassword !== undefined && { sentinelPassword: settings.sentinelPassword }),
      ...(settings.tls !== undefined && { enableTLSForSentinelMode: true, sentinelTLS: settings.tls }),
      sentinelCommandTimeout: settings.commandTimeoutMs,
      // Every sentinel unreachable: ask them all again after 100 ms, 200 ms, … (as the client's own).
      sentinelRetryStrategy: backOff,
      // The failover detector's subscriptions: a sentinel lost is tried again after a second.
      sentinelReconnectStrategy: () => 1000,
      failoverDetector: true,
      updateSentinels: true,
      reconnectOnError: (error) => (/\bREADONLY\b/.test(error.message) ? 1 : false),
      lazyConnect: true,
      enableOfflineQueue: true,
      retryStrategy,
    });
  }
  if (parsed.mode === 'single') {
    return new Redis({
      ...common,
      host: parsed.host,
      port: parsed.port,
      db: parsed.db,
      lazyConnect: true,
      enableOfflineQueue: true,
      retryStrategy: reconnectDelay,
    });
  }
  const options: ClusterOptions = {
    lazyConnect: true,
    enableOfflineQueue: true,
    enableReadyCheck: true,
    enableAutoPipelining: false,
    slotsRefreshInterval: CLUSTER_SLOTS_REFRESH_MS,
    maxRedirections: CLUSTER_MAX_REDIRECTIONS,
    retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
    retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
    slotsRefreshTimeout: Math.min(settings.connectTimeoutMs, 1000),
    clusterRetryStrategy: reconnectDelay,
    // A node's socket refusing access (its TLS certificate fails verification, ours is refused)
    // is reported as a `node error`: ioredis' slot refresh would show it as "Connection is closed."
    redisOptions: { ...common, enableAutoPipelining: false, Connector: reportingConnector((error, node) => void (accessDenied(error) !== undefined && cluster.emit('node error', error, node))) },
  };
  const cluster: Cluster = new Cluster(
    parsed.nodes.map(({ host, port }) => ({ host, port })),
    options,
  );
  guardAsking(cluster);
  return cluster;
}

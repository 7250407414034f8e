import { randomUUID } from 'node:crypto';
import { checkStoreUrl, ConfigError, Namespace, realClock, silentLogger, type Clock, type KV, type Logger } from '@roster/kv-adapter';
import { checkNodeOptions } from '@roster/election';
import { checkInstanceId, checkThreads } from './internal/instanceIds.js';
import type { RebalanceUpdate } from './events.js';

/** Static clustering: every instance is told its place; no store, no coordination. */
export interface StaticClusterSettings {
  /** This instance's base thread index, from 0 to `total − threads`. */
  readonly index: number;
  /** The number of threads in the whole cluster. */
  readonly total: number;
}

/**
 * Options of `createCluster()`, as libcluster configures a cluster connection. Give exactly one
 * of `registry` (dynamic clustering) and `static`.
 */
export interface ClusterOptions {
  /** The cluster key: identifies the cluster, typically the application name. */
  readonly key: string;
  /**
   * The environment (`production`, `dev`, …): instances of one key in different environments never
   * see each other. @defaultValue `'production'`
   */
  readonly env?: string;
  /**
   * This instance's identifier, unique in the cluster; instances are ordered by it. 1 to 128 of
   * letters, digits and `. _ @ -`. @defaultValue a fresh UUID without dashes
   */
  readonly instanceId?: string;
  /**
   * How many worker threads (or sub-processes) this instance runs: it is given that many
   * consecutive indices. From 1 to 1 000 000. @defaultValue 1
   */
  readonly threads?: number;
  /**
   * Dynamic clustering: where the instances meet. A store URL (`redis://host:6379`, a
   * comma-separated list of Redis Cluster nodes, `postgres://…`; see `checkStoreUrl`), connected on `join()` and
   * closed on `leave()`; or a `KV` (e.g. `MemoryKV`), which the handle uses but never closes.
   */
  readonly registry?: string | KV;
  /** Static clustering: this instance's base index and the cluster total. */
  readonly static?: StaticClusterSettings;
  /** Called with every re-balance: the same updates as `on('rebalance', …)`. */
  readonly onRebalance?: (update: RebalanceUpdate) => void;
  /**
   * Dynamic mode: the Roster interval I. A crashed instance's threads are handed out again within
   * about T + 4I. @defaultValue 1000
   */
  readonly intervalMs?: number;
  /** Dynamic mode: the Roster timeout T; more than twice `intervalMs`. @defaultValue 5 × intervalMs */
  readonly timeoutMs?: number;
  /** The clock every timer goes through. @defaultValue the real clock */
  readonly clock?: Clock;
  /** Where the handle and its Roster node log (pino's shape). @defaultValue silent */
  readonly logger?: Logger;
}

/** How the instance finds its place. */
export type ClusterMode =
  | { readonly kind: 'dynamic'; readonly registry: string | KV }
  | { readonly kind: 'static'; readonly index: number; readonly total: number };

/** {@link ClusterOptions} validated, with defaults applied. */
export interface ResolvedClusterOptions {
  readonly key: string;
  readonly env: string;
  readonly instanceId: string;
  readonly threads: number;
  readonly mode: ClusterMode;
  readonly onRebalance: ((update: RebalanceUpdate) => void) | undefined;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** The environment used when none is given, as libcluster's `cluster-test`. */
export const DEFAULT_ENV = 'production';

/**
 * Validates `createCluster()` options once, up front. Every problem is a `ConfigError` naming the
 * field (code `CONFIG_INVALID`).
 */
export function resolveClusterOptions(options: ClusterOptions): ResolvedClusterOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', options, 'Expected an options object');
  Namespace.check('key', options.key);
  const env = options.env ?? DEFAULT_ENV;
  Namespace.check('env', env);
  const instanceId = options.instanceId ?? randomUUID().replaceAll('-', '');
  checkInstanceId(instanceId);
  const threads = options.threads ?? 1;
  checkThreads(threads);
  if (options.onRebalance !== undefined && typeof options.onRebalance !== 'function') {
    throw new ConfigError('onRebalance', options.onRebalance, 'Expected `onRebalance` to be a function');
  }
  // The node's own rules and defaults for the interval and the timeout (`createNode()` applies
  // them again), checked here so that a bad timing fails before anything connects.
  const { intervalMs, timeoutMs } = checkNodeOptions({
    cluster: options.key,
    env,
    ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  return {
    key: options.key,
    env,
    instanceId,
    threads,
    mode: resolveMode(options, threads),
    onRebalance: options.onRebalance,
    intervalMs,
    timeoutMs,
    clock: options.clock ?? realClock,
    logger: options.logger ?? silentLogger,
  };
}

function resolveMode(options: ClusterOptions, threads: number): ClusterMode {
  const { registry } = options;
  const settings = options.static;
  if (registry !== undefined && settings !== undefined) {
    throw new ConfigError('static', settings, 'Expected either `registry` (dynamic clustering) or `static` settings, not both');
  }
  if (settings !== undefined) return { kind: 'static', ...resolveStatic(settings, threads) };
  if (typeof registry === 'string') {
    try {
      checkStoreUrl(registry);
    } catch (error) {
      if (!ConfigError.is(error)) throw error;
      // The store's message, without its "config: " prefix and ", got …" suffix (the value is redacted).
      const reason = error.message.replace(/^config: /, '').replace(/, got [\s\S]*$/, '');
      throw new ConfigError('registry', error.value, `Expected \`registry\` to be a store URL (${reason})`);
    }
    return { kind: 'dynamic', registry };
  }
  if (typeof registry === 'object' && registry !== null && typeof (registry as KV).get === 'function') {
    return { kind: 'dynamic', registry };
  }
  throw new ConfigError(
    'registry',
    registry,
    'Expected `registry` to be a store URL or a KV (dynamic clustering), or `static` settings to be given',
  );
}

function resolveStatic(settings: StaticClusterSettings, threads: number): StaticClusterSettings {
  if (typeof settings !== 'object' || settings === null) {
    throw new ConfigError('static', settings, 'Expected `static` to be `{ index, total }`');
  }
  const { index, total } = settings;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 1) {
    throw new ConfigError('static.total', total, 'Expected `static.total` to be a positive integer');
  }
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index + threads > total) {
    throw new ConfigError(
      'static.index',
      index,
      `Expected \`static.index\` to be an integer from 0 to \`static.total\` − \`threads\` (${total - threads})`,
    );
  }
  return { index, total };
}


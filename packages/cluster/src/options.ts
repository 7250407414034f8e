import { checkStoreUrl, ConfigError, realClock, silentLogger, type Clock, type KV, type Logger } from '@roster/kv-adapter';
import { checkNodeOptions } from '@roster/election';
import { checkThreads } from './internal/threads.js';
import type { RebalanceUpdate } from './events.js';

/** Static clustering: every instance is told its place; no store, no coordination. */
export interface StaticClusterSettings {
  /** This instance's base thread index, from 0 to `total − threads`. */
  readonly index: number;
  /** The number of threads in the whole cluster. */
  readonly total: number;
}

/**
 * Options of `createCluster()`, as libcluster configures a cluster connection (libcluster's cluster
 * key is `group`, its instance identifier `id`, its registry `store`). Give exactly one of `store`
 * (dynamic clustering) and `static`.
 */
export interface ClusterOptions {
  /** The group: the instances that share the threads, typically the application name (libcluster's cluster key). */
  readonly group: string;
  /**
   * The environment (`production`, `dev`, …): instances of one group in different environments
   * never see each other. @defaultValue `'production'`
   */
  readonly env?: string;
  /**
   * This instance's id (its Roster node id), unique in the group; instances are ordered by it. 1
   * to 128 of letters, digits and `. _ @ -` (`isValidId`). @defaultValue a fresh UUID without dashes
   */
  readonly id?: string;
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
  readonly store?: string | KV;
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
  | { readonly kind: 'dynamic'; readonly store: string | KV }
  | { readonly kind: 'static'; readonly index: number; readonly total: number };

/** {@link ClusterOptions} validated, with defaults applied. */
export interface ResolvedClusterOptions {
  readonly group: string;
  readonly env: string;
  readonly id: string;
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
  const env = options.env ?? DEFAULT_ENV;
  const threads = options.threads ?? 1;
  checkThreads(threads);
  if (options.onRebalance !== undefined && typeof options.onRebalance !== 'function') {
    throw new ConfigError('onRebalance', options.onRebalance, 'Expected `onRebalance` to be a function');
  }
  // The node's own rules and defaults for the group, the environment, the id, the interval and
  // the timeout (`createNode()` applies them again), checked here so that a bad value fails at
  // createCluster(), before anything connects, in static mode too (which starts no node).
  const { id, intervalMs, timeoutMs } = checkNodeOptions({
    group: options.group,
    env,
    ...(options.id !== undefined && { id: options.id }),
    ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
  });
  return {
    group: options.group,
    env,
    id,
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
  const { store } = options;
  const settings = options.static;
  if (store !== undefined && settings !== undefined) {
    throw new ConfigError('static', settings, 'Expected either `store` (dynamic clustering) or `static` settings, not both');
  }
  if (settings !== undefined) return { kind: 'static', ...resolveStatic(settings, threads) };
  if (typeof store === 'string') {
    try {
      checkStoreUrl(store);
    } catch (error) {
      if (!ConfigError.is(error)) throw error;
      // The store's message, without its "config: " prefix and ", got …" suffix (the value is redacted).
      const reason = error.message.replace(/^config: /, '').replace(/, got [\s\S]*$/, '');
      throw new ConfigError('store', error.value, `Expected \`store\` to be a store URL (${reason})`);
    }
    return { kind: 'dynamic', store };
  }
  if (typeof store === 'object' && store !== null && typeof (store as KV).get === 'function') {
    return { kind: 'dynamic', store };
  }
  throw new ConfigError(
    'store',
    store,
    'Expected `store` to be a store URL or a KV (dynamic clustering), or `static` settings to be given',
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


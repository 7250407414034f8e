import {
  ConfigError,
  DEFAULT_NONCE_WINDOW,
  Namespace,
  realClock,
  silentLogger,
  type Clock,
  type KV,
  type Logger,
} from '@roster/kv-adapter';
import { checkId, checkPriority, checkWeight, ListCache, newId } from '@roster/follower';
import { deriveTiming, resolveDurations, type Timing } from './timing.js';

/** Options of `createNode()`. */
export interface RosterNodeOptions {
  /** The store: a `KV` (`MemoryKV` for one process, `RedisKV`, `EtcdKV`, … across processes). */
  readonly store: KV;
  /** The group: the nodes that elect one leader among them, typically the application name. */
  readonly group: string;
  /** The environment (`production`, `dev`, …); groups in different environments never meet. */
  readonly env: string;
  /** This node's id: 1 to 128 of letters, digits and `. _ @ -` (`isValidId`). @defaultValue a fresh UUID without dashes (`newId()`) */
  readonly id?: string;
  /** The protocol's period I: every loop runs once per interval. @defaultValue 1000 */
  readonly intervalMs?: number;
  /**
   * The timeout T: a leader whose Version has not changed for T is presumed dead, a follower whose
   * PINGs stopped for T is removed. Must be greater than twice `intervalMs`. @defaultValue 5000
   */
  readonly timeoutMs?: number;
  /**
   * The renew deadline: a leader that could not publish for this long stops calling itself leader.
   * Must be greater than `intervalMs` and less than `timeoutMs − intervalMs`. @defaultValue timeoutMs / 2
   */
  readonly renewDeadlineMs?: number;
  /**
   * How long a candidate waits after its claim before it re-reads to confirm. Safety does not rest
   * on it (a candidate confirms only once every other broadcast stood still for T); it gives a rival
   * that read the window just before the claim landed the time to land its own (see
   * docs/protocol.md). @defaultValue intervalMs / 10
   */
  readonly settleMs?: number;
  /** Longest any single store operation may take before it counts as failed. @defaultValue intervalMs / 2 */
  readonly operationTimeoutMs?: number;
  /**
   * How long `stop()` and `resign()` wait for the work started by `whileLeader()` to settle, once
   * its signal aborted, before the goodbye: the next leader is elected only after it, so its
   * leadership does not overlap this one's work. From 0 to `timeoutMs`. @defaultValue timeoutMs
   */
  readonly leaderWorkTimeoutMs?: number;
  /** How many nonces each compound key may use. @defaultValue 4 */
  readonly nonceWindow?: number;
  /** This member's weight, carried in the broadcast (its thread count for `@roster/cluster`). @defaultValue 1 */
  readonly weight?: number;
  /**
   * This member's priority, an integer from 0 to `MAX_PRIORITY` (999,999,999,999), carried in the
   * member list: among candidates the higher priority wins, and a leader hands over (as
   * `resign()` does) to a member of higher priority once that member has PINGed it for T. Equal
   * priorities behave as without priorities. For a rolling deploy, derive it from the release
   * with `priorityFromVersion()`, so that leadership moves once, to the first node of the new
   * version (docs/protocol.md, "Priorities and rolling deploys"). @defaultValue 0
   */
  readonly priority?: number;
  /** Follow the leader and the member list without joining, PINGing or ever campaigning. @defaultValue false */
  readonly observer?: boolean;
  /** The clock every timer and duration goes through. @defaultValue the real clock */
  readonly clock?: Clock;
  /** Where the node logs (pino's shape). @defaultValue silent */
  readonly logger?: Logger;
  /**
   * Member lists shared with the other nodes of this process that follow the same group (see
   * `ListCache`): a new list is then read or built once per process. @defaultValue one of its own
   */
  readonly listCache?: ListCache;
}

/**
 * The identity and timing of a node, every default applied: what `node.settings` holds (frozen,
 * fixed for the node's life) and what {@link checkNodeOptions} answers before a node exists.
 * Read it instead of repeating the options: a probe, a metric or a log line that needs the
 * node's interval gets the one the node runs with. The store, clock and logger are not settings.
 *
 * @example
 * ```ts
 * const node = createNode({ store, group: 'billing', env: 'prod' });
 * node.settings; // { id: '5f0c…', group: 'billing', env: 'prod', intervalMs: 1000, timeoutMs: 5000, renewDeadlineMs: 2500, … }
 * ```
 */
export interface NodeSettings {
  /** The node's id (given, or a fresh UUID without dashes). */
  readonly id: string;
  /** The group the node belongs to (`group` of `createNode()`). */
  readonly group: string;
  /** The environment (`env` of `createNode()`). */
  readonly env: string;
  /** The protocol's period I, in ms. */
  readonly intervalMs: number;
  /** The timeout T, in ms. */
  readonly timeoutMs: number;
  /** The renew deadline, in ms: a leader that could not publish for this long stops calling itself leader. */
  readonly renewDeadlineMs: number;
  /** How long a candidate waits after its claim before it re-reads to confirm, in ms. */
  readonly settleMs: number;
  /** Longest a single store operation may take before it counts as failed, in ms. */
  readonly operationTimeoutMs: number;
  /** How long `stop()` and `resign()` wait for the work of `whileLeader()` to settle, in ms. */
  readonly leaderWorkTimeoutMs: number;
  /** How many nonces each compound key may use. */
  readonly nonceWindow: number;
  /** This member's weight, carried in the broadcast. */
  readonly weight: number;
  /** This member's priority, carried in the member list (0: none). */
  readonly priority: number;
  /** True for a node that follows without joining or campaigning. */
  readonly observer: boolean;
}

/** {@link RosterNodeOptions} validated, with every default applied. */
export interface ResolvedConfig extends NodeSettings {
  /** The store (`store` of `createNode()`); the protocol's parts call it `kv`, after its type. */
  readonly kv: KV;
  readonly namespace: Namespace;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly listCache?: ListCache;
  /** Every duration of the protocol, by name (see {@link Timing}). */
  readonly timing: Timing;
}

/**
 * Validates every option of `createNode()` except `store`, throwing a `ConfigError` (code
 * `CONFIG_INVALID`) that names the field, and returns the settings with every default applied
 * (pass the returned `id` on to `createNode()` to keep it). Use it to check options before
 * connecting to the store.
 *
 * @example
 * ```ts
 * checkNodeOptions({ group: 'billing', env: 'dev', intervalMs: 100, timeoutMs: 500 });
 * ```
 */
export function checkNodeOptions(options: Omit<RosterNodeOptions, 'store'> & { readonly store?: KV }): NodeSettings {
  return settingsOf(resolveSettings(options));
}

/** The {@link NodeSettings} of a resolved configuration, frozen: `node.settings`. */
export function settingsOf(config: NodeSettings): NodeSettings {
  const { id, group, env, intervalMs, timeoutMs, renewDeadlineMs, settleMs, operationTimeoutMs, leaderWorkTimeoutMs, nonceWindow, weight, priority, observer } = config;
  return Object.freeze({ id, group, env, intervalMs, timeoutMs, renewDeadlineMs, settleMs, operationTimeoutMs, leaderWorkTimeoutMs, nonceWindow, weight, priority, observer });
}

/**
 * Validates `createNode()` options once, up front, and applies defaults. Every problem is a
 * {@link ConfigError} naming the field. The store must offer compare-and-set: without it two
 * leaders could overwrite each other's publications unseen.
 */
export function resolveConfig(options: RosterNodeOptions): ResolvedConfig {
  const resolved = resolveSettings(options);
  const { store } = options;
  if (typeof store !== 'object' || store === null || typeof store.get !== 'function') {
    throw new ConfigError('store', store, 'Expected `store` to be a KV store (MemoryKV, RedisKV, …)');
  }
  if (store.capabilities?.compareAndSet !== true) {
    throw new ConfigError('store', store.name, 'Expected `store` to support compare-and-set (`capabilities.compareAndSet`), which leader publication requires');
  }
  return { ...resolved, kv: store };
}

function resolveSettings(options: Omit<RosterNodeOptions, 'store'>): Omit<ResolvedConfig, 'kv'> {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', options, 'Expected an options object');
  Namespace.check('group', options.group);
  Namespace.check('env', options.env);
  const id = options.id ?? newId();
  checkId(id, 'id');
  const durations = resolveDurations(options);
  const nonceWindow = options.nonceWindow ?? DEFAULT_NONCE_WINDOW;
  if (!Number.isInteger(nonceWindow) || nonceWindow < 1 || nonceWindow > 1024) {
    throw new ConfigError('nonceWindow', nonceWindow, 'Expected `nonceWindow` to be an integer from 1 to 1024');
  }
  const weight = options.weight ?? 1;
  checkWeight(weight, 'weight');
  const priority = options.priority ?? 0;
  checkPriority(priority, 'priority');
  if (options.observer !== undefined && typeof options.observer !== 'boolean') {
    throw new ConfigError('observer', options.observer, 'Expected `observer` to be a boolean');
  }
  if (options.listCache !== undefined && !(options.listCache instanceof ListCache)) {
    throw new ConfigError('listCache', options.listCache, 'Expected `listCache` to be a ListCache');
  }
  return {
    namespace: new Namespace(options.group, options.env),
    id,
    group: options.group,
    env: options.env,
    ...durations,
    timing: deriveTiming(durations),
    nonceWindow,
    weight,
    priority,
    observer: options.observer ?? false,
    clock: options.clock ?? realClock,
    logger: options.logger ?? silentLogger,
    ...(options.listCache && { listCache: options.listCache }),
  };
}

import type { Instance } from './computeBalance.js';

/** What libcluster's balancing callback receives: this instance's base index, its threads, the total. */
export interface Balance {
  /**
   * This instance's base thread index: its threads are `index … index + threads − 1`. −1 while
   * the instance is not (or no longer) a member of the cluster.
   */
  readonly index: number;
  /** This instance's thread count, as configured. */
  readonly threads: number;
  /** The number of threads in the whole cluster. */
  readonly total: number;
}

/**
 * This instance's base index or the cluster total changed (a re-balance). Emitted on
 * joining (the first one), whenever the base index or the total changes while this instance is a
 * member, and with `index` −1 when it stops being one (on leaving, or when the cluster dropped
 * it). While it is not a member a change of the total alone is not reported: it holds no index.
 */
export interface RebalanceUpdate extends Balance {
  readonly type: 'rebalance';
  /** The base index and total last reported (−1 and 0 before the first re-balance). */
  readonly previous: { readonly index: number; readonly total: number };
  /** Every instance this instance sees, sorted by id, with its base index. */
  readonly instances: readonly Instance[];
  /**
   * Dynamic mode: the generation of the member list this balance comes from (`leader fencing
   * token × 2^53 + broadcast Version`): every later list has a higher one, on every instance. For
   * fencing writes, read the live `cluster.generation` when writing (see docs/cluster.md).
   * `undefined` in static mode and after leaving.
   */
  readonly generation: bigint | undefined;
}

/** The list of instances this instance sees changed (whether or not its own balance did). */
export interface InstancesUpdate {
  readonly type: 'instances';
  /** Every instance, sorted by id, with its base index. */
  readonly instances: readonly Instance[];
  /** See {@link RebalanceUpdate.generation}. */
  readonly generation: bigint | undefined;
}

/** The instance left the cluster (`leave()`) or was destroyed; the last update it emits. */
export interface LeftUpdate {
  readonly type: 'left';
  /** True after `leave()`, false after `destroy()`. */
  readonly graceful: boolean;
}

/** Every update a cluster handle emits, as `watch()` and the async iterator deliver them. */
export type ClusterUpdate = RebalanceUpdate | InstancesUpdate | LeftUpdate;

/** A function installed with `watch()`. */
export type ClusterWatchFunction = (update: ClusterUpdate) => void;

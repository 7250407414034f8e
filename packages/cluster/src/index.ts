/**
 * `@roster/cluster`: libcluster on Roster. Each instance of an application learns its
 * cluster-wide base thread index and the total thread count, and is told whenever either changes,
 * so that the instances can divide work between them.
 *
 * **Guarantees.** In dynamic mode the membership is Roster's (docs/protocol.md). With the defaults
 * I = 1 s and T = 5 s, an instance that leaves gracefully is dropped within about two intervals
 * (T + 4I when it leads the Roster cluster), one that crashes within T + 4I; then every live
 * instance converges on the same sorted list, so their ranges `[index, index + threads)` are
 * disjoint and cover `0 … total − 1`. Between two converged states indices are only *should-be
 * unique*: two instances may briefly hold the same index. Applications make index-keyed work
 * idempotent or transactional, or fence it with `cluster.generation` (docs/cluster.md).
 *
 * @packageDocumentation
 */
export { createCluster } from './createCluster.js';
export type { Cluster, ClusterState, JoinOptions } from './Cluster.js';
export type { ClusterOptions, StaticClusterSettings, ClusterMode } from './options.js';
export { computeBalance, type BalanceMember, type BalanceResult, type Instance } from './computeBalance.js';
export type { Balance, RebalanceUpdate, InstancesUpdate, LeftUpdate, ClusterUpdate, ClusterWatchFunction } from './events.js';
export { ClusterLeftError } from './errors.js';

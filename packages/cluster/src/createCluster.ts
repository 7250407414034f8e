import { Cluster } from './Cluster.js';
import { resolveClusterOptions, type ClusterOptions } from './options.js';

/**
 * Creates a cluster handle (libcluster's `cluster_create()` and its setters in one call): validates
 * the options, with a `ConfigError` naming the field for any bad value, and returns a
 * {@link Cluster} that has not joined yet.
 *
 * @example Dynamic clustering over Redis
 * ```ts
 * import { createCluster } from '@roster/cluster';
 *
 * const cluster = createCluster({
 *   group: 'crawler',
 *   env: 'dev',
 *   threads: 4,
 *   store: 'redis://127.0.0.1:6379',
 *   onRebalance: ({ index, threads, total }) => console.log(`threads ${index}…${index + threads - 1} of ${total}`),
 * });
 * await cluster.join();
 * // … work on the items whose hash % cluster.total falls in [cluster.index, cluster.index + 4)
 * await cluster.leave();
 * ```
 *
 * @example Static clustering
 * ```ts
 * const cluster = createCluster({ group: 'crawler', threads: 2, static: { index: 4, total: 8 } });
 * await cluster.join(); // { index: 4, threads: 2, total: 8 }
 * ```
 */
export function createCluster(options: ClusterOptions): Cluster {
  return new Cluster(resolveClusterOptions(options));
}

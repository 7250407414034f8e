import { median, type ClusterView, type TopologyChange } from './ClusterView.js';
import { seconds } from './DemoDisplay.js';

/** What a demo run showed. */
export interface DemoSummary {
  readonly durationMs: number;
  readonly store: string;
  /** Nodes at a time. */
  readonly nodes: number;
  /** Nodes started in all, replacements included. */
  readonly started: number;
  /** How many times a node became leader. */
  readonly elections: number;
  /** Leaders killed. */
  readonly kills: number;
  /** Failover times measured (kill → every survivor follows the new leader), in ms, in order. */
  readonly failoversMs: readonly number[];
  readonly timeoutMs: number;
  readonly intervalMs: number;
  /** Times two alive nodes reported leader at once, and how long in all (ms). */
  readonly twoLeaders: { readonly times: number; readonly ms: number };
  /** The Redis Cluster's topology changes (`--cluster`), in order. */
  readonly topology: readonly TopologyChange[];
}

/** The {@link DemoSummary} of what `view` recorded. */
export function summarize(
  view: ClusterView,
  run: { durationMs: number; store: string; nodes: number; timeoutMs: number; intervalMs: number },
): DemoSummary {
  return {
    ...run,
    started: view.nodes.length,
    elections: view.elections,
    kills: view.failovers.length,
    failoversMs: view.failovers.flatMap((f) => (f.durationMs === undefined ? [] : [f.durationMs])),
    twoLeaders: { times: view.overlaps.length, ms: view.overlapMs(run.durationMs) },
    topology: view.topology,
  };
}

/**
 * The summary as printed at the end of the demo:
 *
 * ```
 * summary: ran 20.0 s, 5 nodes at a time (9 started in all), store: redis-server (…) at redis://…
 *   elections: 5
 *   failovers: 4 of 4 leader kills, min 1.21 s, median 1.30 s, max 1.42 s (timeout 1.00 s, interval 0.20 s)
 *   two nodes reporting leader at once: never
 * ```
 *
 * and with `--cluster`, a line for the topology changes:
 * `  cluster changes: graceful failover, resharding, master kill: the leader unchanged through 3 of 3`.
 */
export function formatSummary(s: DemoSummary): string {
  const times = s.failoversMs;
  const spread =
    times.length === 0
      ? ''
      : `, min ${seconds(Math.min(...times))}, median ${seconds(median(times)!)}, max ${seconds(Math.max(...times))}`;
  return [
    '',
    `summary: ran ${(s.durationMs / 1000).toFixed(1)} s, ${s.nodes} nodes at a time (${s.started} started in all), store: ${s.store}`,
    `  elections: ${s.elections}`,
    `  failovers: ${times.length} of ${s.kills} leader kills${spread} (timeout ${seconds(s.timeoutMs)}, interval ${seconds(s.intervalMs)})`,
    ...(s.topology.length > 0 ? [`  cluster changes: ${s.topology.map((c) => c.kind).join(', ')}: the leader unchanged through ${unchanged(s.topology)} of ${s.topology.length}`] : []),
    `  two nodes reporting leader at once: ${s.twoLeaders.times === 0 ? 'never' : `${s.twoLeaders.times} ${s.twoLeaders.times === 1 ? 'time' : 'times'}, ${seconds(s.twoLeaders.ms)} in all`}`,
    '',
    'Next: run nodes against your own Redis with `roster node --store redis://HOST:6379 --group APP --env ENV` (packages/cli/README.md).',
    '',
  ].join('\n');
}

/** How many of `changes` ended with the leader (id and era) they started with, and no election. */
function unchanged(changes: readonly TopologyChange[]): number {
  return changes.filter((c) => c.after && c.after.id === c.before.id && c.after.era === c.before.era && c.elections === 0).length;
}

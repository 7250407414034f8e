import { median, type ClusterView } from './ClusterView.js';
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
  };
}

/**
 * The summary as printed at the end of the demo:
 *
 * ```
 * summary: ran 20.0 s, 5 nodes at a time (9 started in all), store: redis-server (…) at redis://…
 *   elections: 5
 *   failovers: 4 of 4 leader kills, min 1.21 s, median 1.30 s, max 1.42 s (timeout 1.00 s, interval 0.20 s)
 * ```
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
    '',
    'Next: run nodes against your own Redis with `roster node --store redis://HOST:6379 --key APP --env ENV` (packages/cli/README.md).',
    '',
  ].join('\n');
}

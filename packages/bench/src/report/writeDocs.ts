/** Writes the report (benchmarks.md and its plots) from a result record: into docs/, or beside the results. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchResult } from '../result.js';
import { PLOT_FILES, renderMarkdown } from './markdown.js';
import { PALETTE, plot, type Series } from './svg.js';

/** The failover-against-tolerance plot. */
export function leadershipPlot(result: BenchResult): string {
  const series: Series[] = result.systems
    .filter((r) => r.failover && r.stall && r.failover.summary.n > 0 && r.stall.toleranceMs > 0)
    .map((r, i) => ({
      name: `${r.label}${r.ratio ? ` (ratio ${r.ratio.toFixed(2)})` : ''}`,
      color: PALETTE[i % PALETTE.length]!,
      points: [{ x: r.stall!.toleranceMs, y: r.failover!.summary.median, yHigh: r.failover!.summary.p90 }],
    }));
  return plot([
    {
      title: 'Crash failover against stall tolerance',
      xLabel: 'stall tolerance, ms (log)',
      yLabel: 'crash failover median (bar: p90), ms (log)',
      series,
      guides: [
        { factor: 1, label: 'ratio 1.0' },
        { factor: 1.2, label: '1.2' },
        { factor: 2, label: '2' },
        { factor: 4, label: '4' },
      ],
      xRange: [20, 5000],
      yRange: [50, 5000],
    },
  ]);
}

/** The cost-per-member plot. */
export function scalePlot(result: BenchResult): string {
  const groups = new Map<string, typeof result.scale>();
  for (const r of result.scale) {
    const key = `${r.store === 'redis' ? 'redis-server' : r.store === 'cluster' ? 'Redis Cluster' : r.store === 'etcd' ? 'etcd' : r.store === 'postgres' ? 'PostgreSQL' : r.store === 'mariadb' ? 'MariaDB' : r.store === 'nats' ? 'NATS JetStream' : 'Redis Sentinel'}, I=${r.intervalMs}/T=${r.timeoutMs}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const series = (pick: (r: (typeof result.scale)[number]) => number): Series[] =>
    [...groups.entries()].map(([name, rows], i) => ({ name, color: PALETTE[i % PALETTE.length]!, line: true, points: rows.map((r) => ({ x: r.members, y: pick(r), hollow: r.convergeMs === null || r.note !== undefined })) }));
  const footnote = result.scale.some((r) => r.convergeMs === null || r.note !== undefined) ? 'ring: the group did not converge, or its leader moved on its own' : undefined;
  return plot([
    { title: 'Bytes Redis sends per member per interval', xLabel: 'members N (log)', yLabel: 'bytes (log)', series: series((r) => r.bytesOutPerMemberInterval), ...(footnote && { footnote }) },
    { title: 'Redis commands per member per interval', xLabel: 'members N (log)', yLabel: 'commands (log)', series: series((r) => r.commandsPerMemberInterval), ...(footnote && { footnote }) },
  ]);
}

/** The name of the report's page, in whichever directory it is written. */
export const REPORT_FILE = 'benchmarks.md';

/**
 * Where a run's report goes: `docs/` of the repository when the run writes the docs (the full
 * run of everything, or `--write-docs`), else `resultsDir`, beside the JSON records (git-ignored),
 * so that a quick or partial run leaves the committed tree as it was.
 */
export function reportDir(writeDocs: boolean, where: { readonly repoRoot: string; readonly resultsDir: string }): string {
  return writeDocs ? join(where.repoRoot, 'docs') : where.resultsDir;
}

/** Writes the page and its plots into `dir` (created when missing); returns the paths written. */
export async function writeReport(result: BenchResult, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const put = async (name: string, text: string): Promise<void> => {
    const path = join(dir, name);
    await writeFile(path, text);
    written.push(path);
  };
  await put(REPORT_FILE, renderMarkdown(result));
  if (result.systems.length > 0) await put(PLOT_FILES.leadership, leadershipPlot(result));
  if (result.scale.length > 0) await put(PLOT_FILES.scale, scalePlot(result));
  return written;
}

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, UsageError } from '../src/options.js';
import { PLOT_FILES, renderMarkdown } from '../src/report/markdown.js';
import { quantile, summarize } from '../src/report/stats.js';
import { leadershipPlot, reportDir, REPORT_FILE, scalePlot, writeReport } from '../src/report/writeDocs.js';
import type { BenchResult } from '../src/result.js';
import { parseDriverLine } from '../src/systems/peers.js';
import { parseRosterLine } from '../src/systems/roster.js';

describe('reading node lines', () => {
  it('translates roster node --json role lines into ready, leader, follower and stood', () => {
    expect(parseRosterLine('{"ts":1,"id":"a","event":"role","role":"follower","previous":null,"reason":"started"}')).toEqual({ t: 1, kind: 'ready' });
    // A follower that stands is a change of reported role: it ends a disruption-free pause.
    expect(parseRosterLine('{"ts":2,"id":"a","event":"role","role":"candidate","previous":"follower","reason":"stale"}')).toEqual({ t: 2, kind: 'stood' });
    expect(parseRosterLine('{"ts":2,"id":"a","event":"role","role":"follower","previous":"candidate","reason":"leader-alive"}')).toBeUndefined();
    // A lapsed lease is shown as candidate: the leader no longer leads, for its users.
    expect(parseRosterLine('{"ts":2,"id":"a","event":"role","role":"candidate","previous":"leader","reason":"lease-expired"}')).toEqual({ t: 2, kind: 'follower' });
    expect(parseRosterLine('{"ts":3,"id":"a","event":"role","role":"leader","previous":"candidate","reason":"confirmed"}')).toEqual({ t: 3, kind: 'leader' });
    expect(parseRosterLine('{"ts":4,"id":"a","event":"role","role":"follower","previous":"leader","reason":"lease-expired"}')).toEqual({ t: 4, kind: 'follower' });
  });

  it('keeps the member list of members lines and ignores unknown events and non-JSON', () => {
    expect(parseRosterLine('{"ts":5,"id":"a","event":"members","version":2,"members":["a","b"],"added":["b"],"removed":[]}')).toEqual({ t: 5, kind: 'members', members: ['a', 'b'] });
    expect(parseRosterLine('{"ts":6,"id":"a","event":"something-new"}')).toBeUndefined();
    expect(parseRosterLine('not json')).toBeUndefined();
  });

  it('reads the peer drivers\' lines', () => {
    expect(parseDriverLine('{"t":7,"event":"leader"}')).toEqual({ t: 7, kind: 'leader' });
    expect(parseDriverLine('{"t":8,"event":"bogus"}')).toBeUndefined();
  });
});

describe('order statistics', () => {
  it('interpolates quantiles between order statistics', () => {
    expect(quantile([1, 2, 3, 4, 5], 0.5)).toBe(3);
    expect(quantile([10, 20], 0.9)).toBe(19);
    expect(summarize([5, 1, 3])).toEqual({ n: 3, median: 3, p90: 5, min: 1, max: 5 });
    expect(summarize([]).n).toBe(0);
  });
});

describe('the command line', () => {
  it('runs everything and writes the docs by default, and only what is asked otherwise', () => {
    const all = parseBenchArgs([]);
    expect(all).toMatchObject({ mode: 'full', writeDocs: true, kills: 10, systems: ['roster', 'roster-renew', 'roster-sentinel', 'roster-etcd', 'roster-postgres', 'roster-mariadb', 'roster-nats', 'redis-leader', 'etcd'] });
    // PostgreSQL's rows run in the same run as Redis's: at N = 100 and 1,000 in the scale part.
    expect(all.scale.filter((c) => c.store === 'postgres').map((c) => [c.members, c.intervalMs, c.timeoutMs])).toEqual([[100, 1000, 5000], [1000, 1000, 5000]]);
    expect(all.scale.some((c) => c.members === 10_000)).toBe(true);
    const some = parseBenchArgs(['--quick', '--only', 'roster', '--section', 'failover,stall']);
    expect(some).toMatchObject({ mode: 'quick', writeDocs: false, systems: ['roster'], sections: ['failover', 'stall'], kills: 5 });
    expect(some.scale.every((c) => c.members <= 1000)).toBe(true);
  });

  it('runs the scale section on the stores asked for, with the member counts asked for', () => {
    const redisOnly = parseBenchArgs(['--only', 'roster', '--section', 'scale', '--scale-store', 'redis', '--scale-n', '300,1000']);
    expect(redisOnly.scale.map((c) => [c.store, c.members])).toEqual([['redis', 300], ['redis', 1000]]);
    expect(redisOnly.writeDocs).toBe(false);
    const sentinel = parseBenchArgs(['--quick', '--only', 'roster-sentinel', '--section', 'scale', '--scale-store', 'sentinel']);
    expect(sentinel.scale.map((c) => [c.store, c.members, c.intervalMs])).toEqual([['sentinel', 100, 1000], ['sentinel', 1000, 1000]]);
    const etcd = parseBenchArgs(['--section', 'scale', '--scale-store', 'etcd']);
    expect(etcd.scale.map((c) => [c.store, c.members, c.intervalMs])).toEqual([['etcd', 100, 1000], ['etcd', 1000, 1000]]);
    expect(() => parseBenchArgs(['--scale-store', 'zookeeper'])).toThrow(/"zookeeper"/);
  });

  it('loads the machine with a CPU hog of N busy loops during the scale section when asked (--hog), never in a run that writes the docs', () => {
    expect(parseBenchArgs(['--section', 'scale', '--hog', '2'])).toMatchObject({ hog: 2, writeDocs: false });
    expect(parseBenchArgs([]).hog).toBeUndefined();
    expect(parseBenchArgs(['--hog', '0']).hog).toBeUndefined();
    expect(() => parseBenchArgs(['--hog', 'lots'])).toThrow(/--hog takes a number of busy loops/);
  });

  it('runs MariaDB and NATS JetStream like PostgreSQL: a comparison row each, and N = 100 and 1,000 at I=1000/T=5000', () => {
    const both = parseBenchArgs(['--only', 'roster-mariadb,roster-nats', '--scale-store', 'mariadb,nats']);
    expect(both).toMatchObject({ systems: ['roster-mariadb', 'roster-nats'], writeDocs: false });
    expect(both.scale.map((c) => [c.store, c.members, c.intervalMs, c.timeoutMs])).toEqual([
      ['mariadb', 100, 1000, 5000],
      ['mariadb', 1000, 1000, 5000],
      ['nats', 100, 1000, 5000],
      ['nats', 1000, 1000, 5000],
    ]);
  });

  it('only the full run of everything, or --write-docs, writes the docs; --quick and partial runs do not', () => {
    expect(parseBenchArgs([]).writeDocs).toBe(true);
    expect(parseBenchArgs(['--quick']).writeDocs).toBe(false);
    expect(parseBenchArgs(['--section', 'scale']).writeDocs).toBe(false);
    expect(parseBenchArgs(['--only', 'roster']).writeDocs).toBe(false);
    expect(parseBenchArgs(['--scale-n', '10']).writeDocs).toBe(false);
    expect(parseBenchArgs(['--quick', '--write-docs']).writeDocs).toBe(true);
    expect(parseBenchArgs(['--quick', '--docs']).writeDocs).toBe(true);
    expect(parseBenchArgs(['--no-docs']).writeDocs).toBe(false);
    expect(parseBenchArgs(['--report', 'r.json'])).toMatchObject({ writeDocs: false, reportFrom: 'r.json' });
    expect(parseBenchArgs(['--report', 'r.json', '--write-docs']).writeDocs).toBe(true);
    expect(() => parseBenchArgs(['--write-docs', '--no-docs'])).toThrow(UsageError);
  });

  it('rejects an unknown system with a usage error naming it', () => {
    expect(() => parseBenchArgs(['--only', 'zookeeper'])).toThrow(UsageError);
    expect(() => parseBenchArgs(['--only', 'zookeeper'])).toThrow(/"zookeeper"/);
  });
});

describe('the report', () => {
  const result: BenchResult = {
    schema: 1,
    mode: 'quick',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationS: 120,
    nodes: 5,
    machine: { cpuModel: 'Test CPU', cpuCount: 2, memoryGiB: 8, os: 'Linux', node: 'v20', redis: '7.0.15', etcd: '3.4.23', loadStart: 1, loadEnd: 1 },
    systems: [
      {
        name: 'roster-100-500',
        label: 'Roster I=100/T=500',
        timing: 'I 100 ms, T 500 ms',
        timeoutMs: 500,
        failover: { samplesMs: [550, 600], missed: 0, summary: summarize([550, 600]) },
        stall: { gridMs: 50, triesPerStep: 3, toleranceMs: 400, censored: false, disruptionFreeMs: 250, tries: [{ pauseMs: 450, actualMs: 451, moved: true, leaderSteppedDown: true, disrupted: true }] },
        ratio: 1.43,
      },
    ],
    scale: [
      { store: 'redis', members: 100, intervalMs: 100, timeoutMs: 500, workers: 1, convergeMs: 900, convergeLimitMs: 30_000, windowMs: 5000, commandsPerMemberInterval: 2, sentByOperation: { exchange: 1, getRange: 1 }, redisCallsPerMemberInterval: 2, lagP99Ms: 12, commandsByName: { set: 1, getrange: 1 }, bytesOutPerMemberInterval: 60, bytesInPerMemberInterval: 80, bytesOutPerSecond: 60_000, leaderCpuPercent: 3, leaderCpuUsPerMemberInterval: 3, failoverMs: 550, allFollowMs: 700, unforcedElections: 0 },
    ],
    notes: ['a note'],
  };

  it('renders the machine, the comparison table and the scale table', () => {
    const md = renderMarkdown(result);
    expect(md).toContain('| CPU | Test CPU, 2 cores |');
    expect(md).toContain('| Roster I=100/T=500 | I 100 ms, T 500 ms | 575 / 595 (n=2) | 400 ms | 250 ms | 1.43 |');
    expect(md).toContain('| redis-server | 100 | 100 ms / 500 ms | 1 + 1 + 1 | 900 ms | 2.00 (2.00) | 60 |');
    expect(md).toContain('benchmarks-failover-vs-stall.svg');
  });

  it('goes beside the results unless the run writes the docs, and writes the page with its plots there', async () => {
    const where = { repoRoot: '/repo', resultsDir: '/repo/packages/bench/results' };
    expect(reportDir(parseBenchArgs(['--quick']).writeDocs, where)).toBe('/repo/packages/bench/results');
    expect(reportDir(parseBenchArgs([]).writeDocs, where)).toBe(join('/repo', 'docs'));
    const dir = await mkdtemp(join(tmpdir(), 'bench-report-'));
    try {
      const target = join(dir, 'results');
      const written = await writeReport(result, target);
      expect(written.map((p) => relative(target, p)).sort()).toEqual([REPORT_FILE, PLOT_FILES.scale, PLOT_FILES.leadership].sort());
      expect(await readFile(join(target, REPORT_FILE), 'utf8')).toBe(renderMarkdown(result));
      expect((await readdir(dir)).sort()).toEqual(['results']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('plots one point per system and one line per store', () => {
    expect(leadershipPlot(result).match(/<circle /g)).toHaveLength(1);
    expect(scalePlot(result)).toContain('redis-server, I=100/T=500');
    expect(scalePlot(result).startsWith('<svg')).toBe(true);
  });
});

import type { FaultWindow, History, Observation } from '../../history/History.js';
import type { ResolvedCheckOptions } from '../CheckOptions.js';

/** A point of the history: a time, and (for lines) the line's index, which orders lines within one instant. */
export interface Point {
  readonly at: number;
  /** The observation's index; `-1` for a fault boundary (before the lines of that instant). */
  readonly seq: number;
}

/** One stretch during which a node reported itself leader. */
export interface LeaderReport {
  readonly node: string;
  readonly from: Point;
  readonly to: Point;
  /** What ended it: a line of the node (`role`/`stopped`), a fault (`kill`, `pause`), or the end of the run. */
  readonly endedBy: 'line' | 'kill' | 'pause' | 'end';
}

/** Compares two points: by time, and within one time by line order when `inOrder`. */
export function compare(a: Point, b: Point, inOrder: boolean): number {
  return a.at - b.at || (inOrder ? a.seq - b.seq : 0);
}

/** The faults targeting `node` of `kind`, in time order. */
export function faultsOf(history: History, node: string, kind: string): FaultWindow[] {
  return history.faults.filter((f) => f.target === node && f.kind === kind).sort((a, b) => a.from - b.from);
}

/**
 * Every stretch during which a node reported itself leader: from its `role leader` line until its
 * next `role` line, its `stopped` line, the SIGKILL of its process, or the end of the run. With
 * `excusePauses`, a pause cuts the stretch: the node tells nothing from the pause until its next
 * line after the resume, or `resumeGraceMs` after it, whichever comes first; it reports leader
 * again after that if its last role line still says so.
 */
export function leaderReports(history: History, options: ResolvedCheckOptions): LeaderReport[] {
  const reports: LeaderReport[] = [];
  const byNode = new Map<string, { o: Observation; seq: number }[]>();
  history.observations.forEach((o, seq) => {
    let lines = byNode.get(o.node);
    if (lines === undefined) byNode.set(o.node, (lines = []));
    lines.push({ o, seq });
  });
  for (const [node, lines] of byNode) {
    const kills = faultsOf(history, node, 'kill');
    const silences = options.excusePauses
      ? faultsOf(history, node, 'pause').map((p) => {
          const next = lines.find((l) => l.o.at >= p.to);
          return { from: p.from, to: Math.min(p.to + options.resumeGraceMs, next?.o.at ?? Number.POSITIVE_INFINITY) };
        })
      : [];
    lines.forEach(({ o, seq }, i) => {
      if (o.event.event !== 'role' || o.event.role !== 'leader') return;
      // A `role leader` line right after another continues the same report.
      const previousRole = lines.slice(0, i).reverse().find((l) => l.o.event.event === 'role' || l.o.event.event === 'stopped');
      const killedSince = previousRole !== undefined && kills.some((k) => k.from >= previousRole.o.at && k.from <= o.at);
      if (previousRole?.o.event.event === 'role' && previousRole.o.event.role === 'leader' && !killedSince) return;
      const next = lines.slice(i + 1).find((l) => l.o.event.event === 'stopped' || (l.o.event.event === 'role' && l.o.event.role !== 'leader'));
      const kill = kills.find((k) => k.from >= o.at && (next === undefined || k.from <= next.o.at));
      const end: { to: Point; endedBy: LeaderReport['endedBy'] } =
        kill !== undefined ? { to: { at: kill.from, seq: -1 }, endedBy: 'kill' } : next !== undefined ? { to: { at: next.o.at, seq: next.seq }, endedBy: 'line' } : { to: { at: history.end, seq: Number.POSITIVE_INFINITY }, endedBy: 'end' };
      let from: Point = { at: o.at, seq };
      let resumed = false;
      for (const s of silences) {
        if (s.to <= from.at || s.from >= end.to.at) continue;
        if (s.from > from.at) reports.push({ node, from, to: { at: s.from, seq: -1 }, endedBy: 'pause' });
        from = { at: s.to, seq: -1 };
        resumed = true;
      }
      // A report of zero length counts (a line order can show it), but not the instant a resumed node speaks.
      if (resumed ? from.at < end.to.at : compare(from, end.to, true) < 0) reports.push({ node, from, to: end.to, endedBy: end.endedBy });
    });
  }
  return reports.sort((a, b) => compare(a.from, b.from, true));
}

/**
 * The lines nearest to `at` (at most `limit`), of `nodes` only when given, in time order: what a
 * person reads to see what happened around a violation.
 */
export function around(history: History, at: number, nodes?: readonly string[], limit = 12): Observation[] {
  const pool = history.observations.filter((o) => nodes === undefined || nodes.includes(o.node));
  return pool
    .map((o, i) => ({ o, i, d: Math.abs(o.at - at) }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .slice(0, limit)
    .sort((a, b) => a.i - b.i)
    .map((x) => x.o);
}

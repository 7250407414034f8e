/**
 * What a rolling deploy did to leadership, read from what the processes printed: each process's
 * `role` lines (with their wall time) and when it exited. Shared by test/rolling-deploy.test.ts
 * (`roster node --json` processes) and test/rolling-deploy.measure.ts (services with leader work).
 */

/** One process of the deploy, as its lines tell it. */
export interface DeployedProcess {
  /** `n1`, `n1#2` for its second incarnation… */
  readonly label: string;
  /** Its role lines, in order: the wall time (ms) and the role. */
  readonly roles: readonly { readonly t: number; readonly role: string }[];
  /** When it exited (wall ms), if it did. */
  readonly endedAt: number | undefined;
}

/** One leadership as users saw it: a process saying `leader` until it said otherwise or exited. */
export interface Reign {
  readonly label: string;
  readonly from: number;
  readonly to: number;
}

/** The leaderships of `processes`, in time order (a process still leading at `end` runs to it). */
export function reigns(processes: readonly DeployedProcess[], end: number): Reign[] {
  const out: Reign[] = [];
  for (const p of processes) {
    let from: number | undefined;
    for (const r of p.roles) {
      if (r.role === 'leader') from ??= r.t;
      else if (from !== undefined) {
        out.push({ label: p.label, from, to: r.t });
        from = undefined;
      }
    }
    if (from !== undefined) out.push({ label: p.label, from, to: p.endedAt ?? end });
  }
  return out.sort((a, b) => a.from - b.from);
}

/** What a deploy from `from` to `end` did to leadership. */
export interface DeployFigures {
  /** The leader when the deploy began. */
  readonly first: string | undefined;
  /** The leaders that followed, in order (one entry per change of leader; a process re-validating its own lease is no change). */
  readonly successors: readonly string[];
  /** Pairs of leaderships that overlapped in time (two leaders at one instant), with the overlap. */
  readonly overlaps: readonly { readonly a: string; readonly b: string; readonly ms: number }[];
  /** The longest time within the deploy with no process saying `leader`. */
  readonly longestGapMs: number;
}

/** Reads {@link DeployFigures} off the reigns of a deploy that ran from `from` to `end`. */
export function deployFigures(processes: readonly DeployedProcess[], from: number, end: number): DeployFigures {
  const all = reigns(processes, end).filter((r) => r.to > from);
  const overlaps: { a: string; b: string; ms: number }[] = [];
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length && all[j]!.from < all[i]!.to; j++) {
      overlaps.push({ a: all[i]!.label, b: all[j]!.label, ms: Math.min(all[i]!.to, all[j]!.to) - all[j]!.from });
    }
  }
  const first = all.find((r) => r.from <= from)?.label;
  const successors: string[] = [];
  let current = first;
  for (const r of all) {
    if (r.from <= from || r.label === current) continue;
    successors.push(r.label);
    current = r.label;
  }
  let longestGapMs = 0;
  let covered = from;
  for (const r of all) {
    if (r.from > covered) longestGapMs = Math.max(longestGapMs, r.from - covered);
    covered = Math.max(covered, r.to);
  }
  if (end > covered) longestGapMs = Math.max(longestGapMs, end - covered);
  return { first, successors, overlaps, longestGapMs };
}

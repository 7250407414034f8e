import type { Run } from '../runtime/Simulation.js';

/** A moment when more than one node led, as a property reports it. */
export interface Overlap {
  readonly at: number;
  readonly message: string;
}

/**
 * Every moment two or more nodes had `isLeader()` true at once: each stretch between samples with
 * several leaders, and each instant a node became leader while another still was (an overlap of
 * zero length, which samples cannot show).
 */
export function isLeaderOverlaps(run: Run): Overlap[] {
  const { samples, end, overlaps } = run.history;
  const found: Overlap[] = [];
  samples.forEach((s, i) => {
    if (s.leaders.length < 2) return;
    const until = samples[i + 1]?.at ?? end;
    found.push({ at: s.at, message: `${s.leaders.join(' and ')} all had isLeader() true from ${s.at} to ${until} ms` });
  });
  for (const o of overlaps) found.push({ at: o.at, message: `${o.leaders.join(' and ')} had isLeader() true at the same instant ${o.at} ms` });
  return found;
}

/**
 * Every moment a node was *reported* as leader (its last `role` update said `leader`) while
 * another still was, as a user reading the role updates would have been told.
 */
export function reportedOverlaps(run: Run): Overlap[] {
  const roles = new Map<string, string>();
  const found: Overlap[] = [];
  for (const e of run.history.entries) {
    if (e.kind !== 'update' || e.update.type !== 'role') continue;
    roles.set(e.node, e.update.role);
    if (e.update.role !== 'leader') continue;
    const others = [...roles].filter(([node, role]) => node !== e.node && role === 'leader').map(([node]) => node);
    if (others.length > 0) found.push({ at: e.at, message: `${e.node} was reported as leader while ${others.join(' and ')} still was` });
  }
  return found;
}

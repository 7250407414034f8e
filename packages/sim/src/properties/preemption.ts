import type { Run } from '../runtime/Simulation.js';
import type { Step } from '../scenario/Scenario.js';
import type { Property, Violation } from './Property.js';

/** A `redeploy` step. */
export type RedeployStep = Extract<Step, { do: 'redeploy' }>;

/** What a rolling deploy did to leadership. */
export interface RollingOutcome {
  /** When the first node was taken down. */
  readonly at: number;
  /** The priority every node was redeployed onto. */
  readonly priority: number;
  /** The sole leader of the converged cluster then. */
  readonly leader: string;
  /** Whether that leader was the first node taken down. */
  readonly leaderFirst: boolean;
  /** The leaders that followed it, in order (each change of the sole leader once). */
  readonly successors: readonly string[];
  /** Instants from the first redeploy on with two or more nodes having `isLeader()` true. */
  readonly dual: readonly { readonly at: number; readonly leaders: readonly string[] }[];
  /** The longest time from the first redeploy on with no node having `isLeader()` true, and when it began. */
  readonly longestGap: { readonly at: number; readonly ms: number };
  /** The leader at the end of the run, and its priority. */
  readonly finalLeader: { readonly label: string; readonly priority: number } | undefined;
}

/**
 * The outcome of a *rolling run*: only `start`s of nodes of priorities below P, all before the
 * first `redeploy`, then `redeploy`s onto P only, of two nodes or more converged under one leader
 * when the first came, on a shared view of a store that loses nothing. `undefined` for every
 * other run.
 */
export function rollingRun(run: Run): RollingOutcome | undefined {
  if (run.views !== 'shared' || run.dataLoss) return undefined;
  const steps = run.history.appliedSteps();
  const redeploys = steps.filter((s): s is RedeployStep => s.do === 'redeploy');
  if (redeploys.length === 0 || steps.some((s) => s.do !== 'start' && s.do !== 'redeploy')) return undefined;
  const at = redeploys[0]!.at;
  const priority = redeploys[0]!.priority;
  if (redeploys.some((s) => s.priority !== priority)) return undefined;
  const starts = steps.filter((s) => s.do === 'start');
  if (starts.length < 2 || starts.some((s) => s.at >= at || s.observer === true || (s.priority ?? 0) >= priority)) return undefined;
  const { samples, overlaps, incarnations } = run.history;
  // The last sample before the first redeploy (one at its instant already sees a node stopping).
  const before = samples.filter((s) => s.at < at).at(-1);
  if (!before?.converged || before.leaders.length !== 1) return undefined;
  const leader = before.leaders[0]!;
  const successors: string[] = [];
  const dual = overlaps.filter((o) => o.at >= at).map((o) => ({ at: o.at, leaders: o.leaders }));
  let current = leader;
  let gapFrom: number | undefined;
  let longestGap = { at, ms: 0 };
  for (const s of samples) {
    if (s.at < at) continue;
    if (s.leaders.length > 1) dual.push({ at: s.at, leaders: s.leaders });
    if (s.leaders.length === 0) {
      gapFrom ??= s.at;
      continue;
    }
    if (gapFrom !== undefined && s.at - gapFrom > longestGap.ms) longestGap = { at: gapFrom, ms: s.at - gapFrom };
    gapFrom = undefined;
    if (s.leaders.length === 1 && s.leaders[0] !== current) {
      current = s.leaders[0]!;
      successors.push(current);
    }
  }
  if (gapFrom !== undefined) longestGap = { at: gapFrom, ms: Math.max(longestGap.ms, run.history.end - gapFrom) };
  const last = samples.at(-1);
  const finalLabel = last?.leaders.length === 1 ? last.leaders[0]! : undefined;
  const finalLeader = finalLabel === undefined ? undefined : { label: finalLabel, priority: incarnations.find((i) => i.label === finalLabel)?.priority ?? 0 };
  const first = redeploys[0]!.node;
  const leaderFirst = first === undefined ? false : incarnations.find((i) => i.label === leader)?.id === first;
  return { at, priority, leader, leaderFirst, successors, dual, longestGap, finalLeader };
}

/**
 * Pre-emption, on rolling runs (see {@link rollingRun}): a rolling deploy of every node onto a
 * higher priority changes the leader **once** (the first node of the new priority to be ready
 * takes over from the leader, which hands over as `resign()` does, and nobody of the old priority
 * stands against it), twice at most when the leader was the first node taken down (an old node
 * takes over, then hands over to it when it is back); it never shows two leaders at an instant;
 * and it leaves no instant without a leader longer than a resignation's hand-over, I + I/2 (a
 * claim after the goodbye, its settle time and the polls in between); the last leader has the new
 * priority.
 */
export const preemption: Property = {
  name: 'preemption',
  summary: 'a rolling deploy onto a higher priority changes the leader once, never shows two leaders, and leaves no leaderless gap longer than a resignation’s',
  check(run) {
    const r = rollingRun(run);
    if (!r) return [];
    const { intervalMs: I } = run.scenario.timing;
    const violations: Violation[] = [];
    const v = (at: number, message: string) => violations.push({ property: 'preemption', at, message });
    const most = r.leaderFirst ? 2 : 1;
    if (r.successors.length < 1 || r.successors.length > most) {
      v(r.at, `the leader changed ${r.successors.length} times (${[r.leader, ...r.successors].join(' → ')}), not ${most === 1 ? 'once' : 'once or twice (the leader went first)'}`);
    }
    for (const d of r.dual.slice(0, 1)) v(d.at, `two leaders at once: ${d.leaders.join(', ')}`);
    if (r.longestGap.ms > I + I / 2) v(r.longestGap.at, `no leader for ${r.longestGap.ms} ms (a resignation's hand-over takes at most I + I/2 = ${I + I / 2})`);
    if (r.finalLeader !== undefined && r.finalLeader.priority !== r.priority) v(run.history.end, `the last leader, ${r.finalLeader.label}, has priority ${r.finalLeader.priority}, not ${r.priority}`);
    return violations;
  },
};

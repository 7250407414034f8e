import type { Run } from '../runtime/Simulation.js';
import { parseKeyRef } from '../scenario/keys.js';
import type { Step } from '../scenario/Scenario.js';
import { isLeaderOverlaps, reportedOverlaps } from './leadershipOverlaps.js';
import type { Property, Violation } from './Property.js';

/** A `staleRouting` step. */
export type StaleRoutingStep = Extract<Step, { do: 'staleRouting' }>;

/** What followed the stale routing tables of a pure routing run. */
export interface RoutingOutcome {
  /** The run's `staleRouting` steps, in order. */
  readonly faults: readonly StaleRoutingStep[];
  /** When the first of them began. */
  readonly at: number;
  /** The sole leader of a converged cluster when the first began (its label), if there was one. */
  readonly leader: string | undefined;
  /** Nodes other than {@link leader} that had `isLeader()` true from the first fault on. */
  readonly otherLeaders: readonly string[];
  /** The nodes with `isLeader()` true at the end of the run. */
  readonly leadersAtEnd: readonly string[];
  /**
   * Why the faults may move leadership after all, when they may: the leader's own table hid every
   * nonce of the leader key (it could publish nowhere), or two of them at once (it moved more than
   * one nonce past the copy a follower reads), or it hid a follower's id key while that
   * follower's hid the leader key (that follower could tell its leader from a crashed one by
   * nothing it could read); or a node's table hid the nonce where a leader elected meanwhile
   * published, before that leader listed it (it had no PONG to find either: the same).
   */
  readonly excuse: string | undefined;
}

/**
 * The outcome of a *pure routing run*: its steps are only `start`s, all before the first fault,
 * and at least one `staleRouting`, and the store loses nothing. `undefined` for every other run.
 */
export function routingRun(run: Run): RoutingOutcome | undefined {
  if (run.dataLoss) return undefined;
  const steps = run.history.appliedSteps();
  const faults = steps.filter((s): s is StaleRoutingStep => s.do === 'staleRouting');
  if (faults.length === 0 || steps.some((s) => s.do !== 'start' && s.do !== 'staleRouting')) return undefined;
  const at = faults[0]!.at;
  if (steps.some((s) => s.do === 'start' && s.at >= at)) return undefined;
  const { samples } = run.history;
  const before = samples.filter((s) => s.at <= at).at(-1);
  const leader = before?.converged && before.leaders.length === 1 ? before.leaders[0] : undefined;
  const otherLeaders = new Set<string>();
  for (const s of samples) if (s.at >= at) for (const l of s.leaders) if (l !== leader) otherLeaders.add(l);
  const leaderId = run.history.incarnations.find((i) => i.label === leader)?.id;
  const excuse = (leaderId === undefined ? undefined : excuseOf(faults, leaderId)) ?? unlistedAndBlind(run, faults);
  return { faults, at, leader, otherLeaders: [...otherLeaders], leadersAtEnd: samples.at(-1)?.leaders ?? [], excuse };
}

/**
 * A node whose table hid a nonce of the leader key where another node led (its claim's nonce),
 * while that leader had not listed it: it had no PONG to find, and nothing it could read told that
 * leader from none, so it stands at T (docs/protocol.md, "What a follower may conclude": a private
 * view that also hides the node's PONGs is outside the guarantee). Found by `pnpm chaos --seed
 * 20261208`: a node started 2 s after the first, its table hiding nonce 0 from then on, never saw
 * the leader elected there, never joined, stood and led at nonce 1. Only the lists that leader
 * published while it led count (`pnpm chaos --seed 20261210`: deposed by that node, it followed it
 * and listed it then), from its election on, before the table went stale too (the same seed, once
 * that was fixed: a leader elected 5 ms before the node's table hid its nonce).
 */
function unlistedAndBlind(run: Run, faults: readonly StaleRoutingStep[]): string | undefined {
  const { entries, incarnations } = run.history;
  const idOf = (label: string): string | undefined => incarnations.find((i) => i.label === label)?.id;
  for (const f of faults) {
    const { name, nonce } = parseKeyRef(f.keys);
    if (name !== 'leader') continue;
    const end = f.at + f.forMs;
    for (const e of entries) {
      if (e.kind !== 'update' || e.at >= end || e.update.type !== 'leader') continue;
      const led = e.update.leader;
      // A leader's own `leader` update, at the nonce the node's table hid.
      if (led === undefined || led.id === f.node || idOf(e.node) !== led.id || (nonce !== '*' && led.nonce !== nonce)) continue;
      // Leading while the table hid that nonce (elected before the fault, too); listed by that
      // leader while it led: its lists once it followed another (the node, say) are not its own.
      const stopped = entries.find((m) => m.kind === 'update' && m.node === e.node && m.at >= e.at && m !== e && m.update.type === 'leader')?.at ?? end;
      if (stopped <= f.at) continue;
      const listed = entries.some((m) => m.kind === 'update' && m.node === e.node && m.at >= e.at && m.at < Math.min(end, stopped) && m.update.type === 'members' && m.update.members.some((x) => x.id === f.node));
      if (!listed) return `${f.node}'s table hid ${f.keys}, where ${led.id} led from ${e.at} ms without listing ${f.node}: no PONG to find`;
    }
  }
  return undefined;
}

/** See {@link RoutingOutcome.excuse}. */
function excuseOf(faults: readonly StaleRoutingStep[], leader: string): string | undefined {
  const overlap = (a: StaleRoutingStep, b: StaleRoutingStep) => a.at < b.at + b.forMs && b.at < a.at + a.forMs;
  // Two nonces of the leader key hidden from the leader at once: it moves past a nonce its
  // followers can read, so a follower still reading an older copy cannot tell where it went
  // (a follower watches the nonce of its copy and the next one: docs/protocol.md).
  const own = faults.filter((s) => s.node === leader && parseKeyRef(s.keys).name === 'leader');
  const twice = own.flatMap((a) => own.filter((b) => b !== a && b.keys !== a.keys && overlap(a, b)).map((b) => [a, b] as const))[0];
  if (twice) return `${leader}'s own table hid ${twice[0].keys} and ${twice[1].keys} at once (from ${Math.max(twice[0].at, twice[1].at)} ms)`;
  for (const f of faults.filter((s) => s.node === leader)) {
    const { name, nonce } = parseKeyRef(f.keys);
    if (name === 'leader' && nonce === '*') return `${leader} could not reach the leader key from ${f.at} ms`;
    // A follower PINGs at nonce 0 of its id key: its own table never hides that key.
    if (!name.startsWith('id/') || (nonce !== '*' && nonce !== 0)) continue;
    const cut = faults.find((g) => g.node === name.slice('id/'.length) && parseKeyRef(g.keys).name === 'leader' && overlap(f, g));
    if (cut) return `${leader} could not PONG ${cut.node} while ${cut.node} could not read ${cut.keys} (from ${Math.max(f.at, cut.at)} ms)`;
  }
  return undefined;
}

/**
 * Routing tolerance: stale routing tables (some keys unreadable to one node alone, for a while)
 * make no second leader and never replace a healthy one. On pure routing runs (see
 * {@link routingRun}), unless the faults cut a node off (see {@link RoutingOutcome.excuse}):
 *
 * - at no instant do two nodes have `isLeader()` true, and at most one node is *reported* as
 *   leader by its role updates (what `self-fencing` and `reported-leadership` check with shared
 *   views only);
 * - the sole leader of a converged cluster when the first fault began is still the sole leader at
 *   the end of the run, and no other node led meanwhile: a follower that cannot read the nonce
 *   where its leader publishes, but finds its PONGs, does not stand on the Version's stillness.
 */
export const routingTolerance: Property = {
  name: 'routing-tolerance',
  summary: 'stale routing tables (keys unreadable to one node alone) make no second leader and never replace a leader whose writes land',
  check(run) {
    const r = routingRun(run);
    if (!r || r.excuse !== undefined) return [];
    const violations: Violation[] = [...isLeaderOverlaps(run), ...reportedOverlaps(run)].map((o): Violation => ({ property: 'routing-tolerance', ...o }));
    if (r.leader === undefined) return violations;
    const since = `${r.leader}, the sole leader when the stale routing began (${r.at} ms)`;
    const replaced = run.history.samples.find((s) => s.at >= r.at && s.leaders.some((l) => l !== r.leader));
    if (replaced) violations.push({ property: 'routing-tolerance', at: replaced.at, message: `${r.otherLeaders.join(' and ')} led from ${replaced.at} ms, though ${since} could still publish` });
    if (r.leadersAtEnd.length !== 1 || r.leadersAtEnd[0] !== r.leader) {
      violations.push({ property: 'routing-tolerance', at: run.history.end, message: `the leaders at the end were [${r.leadersAtEnd.join(' ')}], not ${since}` });
    }
    return violations;
  },
};

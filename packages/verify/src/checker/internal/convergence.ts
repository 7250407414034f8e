import type { History } from '../../history/History.js';

/** What one node last reported, as the observer replays the lines. */
interface NodeState {
  id: string;
  alive: boolean;
  paused: boolean;
  role: string | undefined;
  leader: { id: string; era: number | null; nonce: number | null } | undefined;
  members: readonly string[];
}

/** One stretch of the run, from `from` until the next change, and whether the cluster was converged throughout. */
export interface ConvergenceSpan {
  readonly from: number;
  readonly converged: boolean;
}

/**
 * True when every live node follows one leader (same id, era and nonce), that leader is live and
 * reports itself leader, and every live node's member list is exactly the live nodes that are not
 * observers. A paused node is live and holds convergence up until it resumes.
 */
function converged(states: Iterable<NodeState>): boolean {
  const live = [...states].filter((s) => s.alive);
  if (live.length === 0) return true;
  if (live.some((s) => s.paused)) return false;
  const want = live.filter((s) => s.role !== 'observer').map((s) => s.id).sort().join(' ');
  const first = live[0]!.leader;
  if (first === undefined) return false;
  const leader = live.find((s) => s.id === first.id);
  if (leader?.role !== 'leader') return false;
  return live.every((s) => s.leader !== undefined && s.leader.id === first.id && s.leader.era === first.era && s.leader.nonce === first.nonce && [...s.members].sort().join(' ') === want);
}

/**
 * The run cut into spans by every line and fault boundary, each marked converged or not (see
 * {@link converged}), as the nodes' own lines tell it: what a user watching every node would see.
 */
export function convergenceSpans(history: History): ConvergenceSpan[] {
  type Step = { at: number; order: number; apply: (states: Map<string, NodeState>) => void };
  const steps: Step[] = [];
  const state = (states: Map<string, NodeState>, node: string): NodeState => {
    let s = states.get(node);
    if (s === undefined) states.set(node, (s = { id: node, alive: false, paused: false, role: undefined, leader: undefined, members: [] }));
    return s;
  };
  for (const f of history.faults) {
    if (f.from > history.end) continue;
    if (f.kind === 'kill') {
      steps.push({ at: f.from, order: 0, apply: (m) => Object.assign(state(m, f.target), { alive: false, role: undefined, leader: undefined, members: [] }) });
      // Started again at `to` (before the end): live from then on, converged once its lines say so.
      if (f.to < history.end) steps.push({ at: f.to, order: 0, apply: (m) => void (state(m, f.target).alive = true) });
    } else if (f.kind === 'pause') {
      steps.push({ at: f.from, order: 0, apply: (m) => void (state(m, f.target).paused = true) });
      steps.push({ at: f.to, order: 0, apply: (m) => void (state(m, f.target).paused = false) });
    }
  }
  history.observations.forEach((o, i) => {
    // What the runner reads after the end (its own shutdown of the nodes) is not judged.
    if (o.at > history.end) return;
    steps.push({
      at: o.at,
      order: 1 + i,
      apply: (m) => {
        const s = state(m, o.node);
        const e = o.event;
        s.id = e.id;
        s.alive = e.event !== 'stopped';
        if (e.event === 'role') s.role = e.role;
        else if (e.event === 'leader') s.leader = e.leader === null ? undefined : { id: e.leader, era: e.era, nonce: e.nonce };
        else if (e.event === 'members') s.members = e.members;
      },
    });
  });
  steps.sort((a, b) => a.at - b.at || a.order - b.order);
  const states = new Map<string, NodeState>();
  const spans: ConvergenceSpan[] = [{ from: history.start, converged: true }];
  for (let i = 0; i < steps.length; i++) {
    steps[i]!.apply(states);
    // Judge an instant once all its lines are in: lines read together are one moment.
    if (steps[i + 1]?.at === steps[i]!.at) continue;
    const now = converged(states.values());
    const last = spans.at(-1)!;
    if (last.converged === now) continue;
    if (last.from === steps[i]!.at) spans.pop();
    if (spans.at(-1)?.converged !== now) spans.push({ from: steps[i]!.at, converged: now });
  }
  return spans;
}

/** The first instant at or after `from` from which the cluster is converged (until its next change), or `undefined`. */
export function convergedFrom(spans: readonly ConvergenceSpan[], from: number): number | undefined {
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    const until = spans[i + 1]?.from ?? Number.POSITIVE_INFINITY;
    if (s.converged && until > from) return Math.max(s.from, from);
  }
  return undefined;
}

import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';

/** What followed a pause of the leader. */
export interface PauseOutcome {
  /** The paused node's label, and the pause. */
  readonly leader: string;
  readonly at: number;
  readonly forMs: number;
  /** Nodes that stood for election (became candidates) from the pause on. */
  readonly stood: readonly string[];
  /** Nodes other than the paused one that had `isLeader()` true from the pause on. */
  readonly otherLeaders: readonly string[];
}

/**
 * The outcome of the run's pause when the run is a pure leader-pause run: only `start` steps and
 * exactly one `pause`, of the node that was the sole leader of a converged cluster at that time,
 * with another member running, on a shared view of the store. `undefined` for every other run.
 */
export function leaderPause(run: Run): PauseOutcome | undefined {
  if (run.views !== 'shared' || run.dataLoss) return undefined;
  const steps = run.history.appliedSteps();
  const pauses = steps.filter((s) => s.do === 'pause');
  if (pauses.length !== 1 || steps.some((s) => s.do !== 'pause' && s.do !== 'start')) return undefined;
  const pause = pauses[0]!;
  if (pause.do !== 'pause' || steps.some((s) => s.do === 'start' && s.at > pause.at)) return undefined;
  const before = run.history.samples.filter((s) => s.at <= pause.at).at(-1);
  const leader = run.history.incarnations.find((i) => i.id === pause.node)?.label;
  if (leader === undefined || !before?.converged || before.leaders.length !== 1 || before.leaders[0] !== leader) return undefined;
  // Someone must be able to take over: another member running since before the pause.
  if (!run.history.incarnations.some((i) => i.label !== leader && !i.observer && i.startedAt <= pause.at)) return undefined;
  const stood = new Set<string>();
  for (const e of run.history.entries) {
    // A leader whose lease lapsed is shown as `candidate` too, with the lapse as reason: it did not stand.
    if (e.kind === 'update' && e.at >= pause.at && e.update.type === 'role' && e.update.role === 'candidate' && e.update.previous !== 'leader') stood.add(e.node);
  }
  const otherLeaders = new Set<string>();
  for (const s of run.history.samples) if (s.at >= pause.at) for (const l of s.leaders) if (l !== leader) otherLeaders.add(l);
  return { leader, at: pause.at, forMs: pause.forMs, stood: [...stood], otherLeaders: [...otherLeaders] };
}

/**
 * Stall tolerance, a sharp failure window: a pause of the leader shorter than T − I/2 never makes a
 * follower stand nor another node lead (its last publication or beat before the pause is at most
 * I/2 old); a pause of T + I or more always ends in another leader
 * (when the run lasts 3T after the pause). Checked on pure leader-pause runs only (see
 * {@link leaderPause}); between T − I/2 and T + I either may happen.
 */
export const pauseTolerance: Property = {
  name: 'pause-tolerance',
  summary: 'a leader pause shorter than T − I/2 never moves leadership; one of T + I or more always does',
  check(run) {
    const p = leaderPause(run);
    if (!p) return [];
    const { intervalMs: I, timeoutMs: T } = run.scenario.timing;
    const violations: Violation[] = [];
    if (p.forMs < T - I / 2 && (p.stood.length > 0 || p.otherLeaders.length > 0)) {
      const who = p.stood.length > 0 ? `${p.stood.join(', ')} stood` : `${p.otherLeaders.join(', ')} led`;
      violations.push({ property: 'pause-tolerance', at: p.at, message: `${p.leader} was paused for ${p.forMs} ms (< T − I/2 = ${T - I / 2}) and ${who}` });
    }
    if (p.forMs >= T + I && run.history.end >= p.at + p.forMs + 3 * T && p.otherLeaders.length === 0) {
      violations.push({ property: 'pause-tolerance', at: p.at, message: `${p.leader} was paused for ${p.forMs} ms (≥ T + I = ${T + I}) and no other node led` });
    }
    return violations;
  },
};

import type { RosterUpdate } from '@roster/election';
import type { FaultWindow, NodeEvent, History as VerifyHistory, Observation } from '@roster/verify';
import type { Run } from '../runtime/Simulation.js';
import type { Step } from '../scenario/Scenario.js';

/** The line `roster node --json` prints for `update` (the wire contract of `@roster/client`), or `undefined` for a `goodbye`. */
function toNodeEvent(id: string, update: RosterUpdate, ts: number): NodeEvent | undefined {
  switch (update.type) {
    case 'role':
      return { ts, id, event: 'role', role: update.role, previous: update.previous, reason: update.reason };
    case 'leader': {
      const l = update.leader;
      return { ts, id, event: 'leader', leader: l?.id ?? null, era: l?.era ?? null, nonce: l?.nonce ?? null, token: l === undefined ? null : String(l.token) };
    }
    case 'members':
      return { ts, id, event: 'members', version: update.version, members: update.members.map((m) => m.id), added: [...update.added], removed: [...update.removed] };
    case 'stopped':
      return { ts, id, event: 'stopped' };
    case 'goodbye':
      return undefined;
  }
}

/**
 * When the store lost the record of the era: a flush, garbage written over a leader or era key, or
 * an era key's shard back with older data (a rollback of the leader key is no excuse: the leader's
 * newer broadcast at the next nonce still names the era).
 */
export function eraLosses(steps: readonly Step[]): number[] {
  return steps.flatMap((s) =>
    s.do === 'flush' || (s.do === 'garbage' && (s.key.startsWith('leader ') || s.key.startsWith('era ')))
      ? [s.at]
      : s.do === 'keyRollback' && s.keys.startsWith('era ')
        ? [s.at + s.forMs]
        : [],
  );
}

const converted = new WeakMap<Run, VerifyHistory>();

/**
 * The run as `@roster/verify` reads a real one, so that the simulator and `roster verify` check
 * one set of rules: every update of every incarnation (labelled `n1`, `n1#2`…) as the line
 * `roster node --json` would print, in the order it happened; each crash as a `kill` fault, each
 * pause as a `pause` fault, and each loss of the era's record (see {@link eraLosses}) as a
 * `store-data-loss` fault of zero length. No fenced writes: the simulated nodes write nowhere.
 */
export function toVerifyHistory(run: Run): VerifyHistory {
  const cached = converted.get(run);
  if (cached !== undefined) return cached;
  const { history, scenario } = run;
  const ids = new Map(history.incarnations.map((i) => [i.label, i.id]));
  const observations: Observation[] = [];
  for (const e of history.entries) {
    if (e.kind !== 'update') continue;
    const event = toNodeEvent(ids.get(e.node) ?? e.node, e.update, e.at);
    if (event !== undefined) observations.push({ node: e.node, at: e.at, event });
  }
  const labelAt = (id: string, at: number): string | undefined =>
    history.incarnations.find((i) => i.id === id && i.startedAt <= at && (i.endedAt === undefined || i.endedAt >= at))?.label;
  const faults: FaultWindow[] = [];
  for (const i of history.incarnations) {
    if (i.end === 'crashed' && i.endedAt !== undefined) {
      const next = history.incarnations.find((j) => j.id === i.id && j.startedAt >= i.endedAt! && j !== i);
      faults.push({ kind: 'kill', target: i.label, from: i.endedAt, to: next?.startedAt ?? history.end });
    }
  }
  const steps = history.appliedSteps();
  for (const s of steps) {
    if (s.do !== 'pause') continue;
    const target = labelAt(s.node, s.at);
    if (target !== undefined) faults.push({ kind: 'pause', target, from: s.at, to: s.at + s.forMs });
  }
  for (const at of eraLosses(steps)) faults.push({ kind: 'store-data-loss', target: 'store', from: at, to: at });
  const { intervalMs, timeoutMs } = scenario.timing;
  const result: VerifyHistory = {
    observations,
    writes: [],
    faults: faults.sort((a, b) => a.from - b.from),
    timing: { intervalMs, timeoutMs, renewDeadlineMs: scenario.timing.renewDeadlineMs ?? timeoutMs / 2 },
    nodes: history.incarnations.map((i) => i.label),
    start: 0,
    end: history.end,
  };
  converted.set(run, result);
  return result;
}

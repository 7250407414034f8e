import type { NodeRole } from '@roster/client';
import type { FaultWindow, FencedWrite, History, Observation } from '../../src/index.js';

/** The timing of every hand-made history: I = 100 ms, T = 500 ms (failover bound T + 2I = 700 ms, recovery bound 2T + 6I = 1600 ms). */
export const I = 100;
export const T = 500;

export function role(at: number, node: string, r: NodeRole, previous: NodeRole | null = null, reason = 'test'): Observation {
  return { node, at, event: { ts: at, id: node, event: 'role', role: r, previous, reason } };
}

export function leader(at: number, node: string, of: string | null, era = 1, nonce = 0, token = String(era * 4 + nonce)): Observation {
  return { node, at, event: { ts: at, id: node, event: 'leader', leader: of, era: of === null ? null : era, nonce: of === null ? null : nonce, token: of === null ? null : token } };
}

export function members(at: number, node: string, list: readonly string[]): Observation {
  return { node, at, event: { ts: at, id: node, event: 'members', version: at, members: [...list].sort(), added: [], removed: [] } };
}

export function stopped(at: number, node: string): Observation {
  return { node, at, event: { ts: at, id: node, event: 'stopped' } };
}

/** Each of `nodes` starts at `at`: `lead` leads (era, token), the others follow, all list every node. */
export function converged(at: number, nodes: readonly string[], lead: string, era = 1, token = String(era * 4)): Observation[] {
  return nodes.flatMap((n) => [
    role(at, n, n === lead ? 'leader' : 'follower', null, 'started'),
    leader(at, n, lead, era, 0, token),
    members(at, n, nodes),
  ]);
}

export function fault(kind: string, target: string, from: number, to: number): FaultWindow {
  return { kind, target, from, to };
}

export function write(at: number, node: string, token: string, accepted: boolean, highestSeen: string): FencedWrite {
  return { node, at, token, accepted, highestSeen };
}

/** A history of `observations` (sorted here by `at`, stably), three nodes by default, from 0 to `end`. */
export function history(observations: Observation[], more: Partial<Omit<History, 'observations'>> = {}): History {
  const sorted = observations.map((o, i) => ({ o, i })).sort((a, b) => a.o.at - b.o.at || a.i - b.i).map((x) => x.o);
  return {
    observations: sorted,
    writes: [],
    faults: [],
    timing: { intervalMs: I, timeoutMs: T, renewDeadlineMs: 400 },
    nodes: ['n1', 'n2', 'n3'],
    start: 0,
    end: 10_000,
    ...more,
  };
}

/**
 * n1 leads era 1 from 0 ms; n1 is taken out at 1000 ms; n2 takes over era 2 at `takeOverAt` and
 * every live node lists `survivors`. n1's own lines after the fault are `n1After`.
 */
export function takeOver(takeOverAt: number, survivors: readonly string[] = ['n2', 'n3'], n1After: Observation[] = []): Observation[] {
  return [
    ...converged(0, ['n1', 'n2', 'n3'], 'n1'),
    ...n1After,
    role(takeOverAt - 50, 'n2', 'candidate', 'follower', 'stale'),
    role(takeOverAt, 'n2', 'leader', 'candidate', 'confirmed'),
    ...survivors.flatMap((n) => [leader(takeOverAt, n, 'n2', 2, 0), members(takeOverAt + I, n, survivors)]),
  ];
}

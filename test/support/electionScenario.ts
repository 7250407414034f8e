/**
 * The 5-process election check every store set-up goes through (`test/stores-*.test.ts`), on real
 * `roster node --json` processes at I = 100 ms, T = 500 ms: one leader; a SIGKILLed leader replaced
 * within T + 2I (with slack for a loaded machine) by one with a higher fencing token; a sixth
 * node's join seen by all; a hand-over on resign() (SIGUSR2: the resigned process stays a member)
 * and on SIGTERM (it exits 0); never two processes reporting `leader` at once. Every figure is read
 * from what the processes print (the `ts` of their JSON lines).
 */
import { expect } from 'vitest';
import type { RosterNodeProcess } from './rosterNode.js';
import { until } from './rosterNode.js';

export const SCENARIO_I = 100;
export const SCENARIO_T = 500;
/** Slack for a loaded 2-core machine: process scheduling, printing, polling. */
const SLACK = 500;
const GENEROUS = 15_000;

/** What {@link runElectionScenario} measured, in ms. */
export interface ElectionFigures {
  readonly formedMs: number;
  readonly failoverMs: number;
  readonly joinMs: number;
  readonly resignMs: number;
  readonly leaveMs: number;
}

/**
 * Runs the scenario on processes made by `start(id)` (each a `roster node --json … --interval 100
 * --timeout 500` on the store under test, in one group); kill them all afterwards (`killAllNodes`).
 */
export async function runElectionScenario(start: (id: string) => RosterNodeProcess, prefix: string): Promise<ElectionFigures> {
  const nodes: RosterNodeProcess[] = [];
  const killedAt = new Map<RosterNodeProcess, number>();
  const spawn = (id: string): RosterNodeProcess => {
    const p = start(id);
    nodes.push(p);
    return p;
  };
  const alive = (): RosterNodeProcess[] => nodes.filter((p) => p.alive && !killedAt.has(p));
  const idOf = (p: RosterNodeProcess): string => p.events[0]?.id ?? '?';
  const describeAll = (): string => nodes.map((p) => p.describe().slice(-2500)).join('\n');
  const converged = (): boolean => {
    const live = alive();
    const leader = live[0]?.leader;
    if (!leader) return false;
    const holder = live.find((p) => idOf(p) === leader.id);
    if (!holder || holder.role !== 'leader') return false;
    const ids = live.map(idOf).sort().join(',');
    return live.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token && [...p.members].sort().join(',') === ids);
  };
  const leaderProcess = (): RosterNodeProcess => {
    const leader = alive()[0]!.leader!;
    return alive().find((p) => idOf(p) === leader.id)!;
  };
  const becameLeaderAt = (p: RosterNodeProcess, since: number): number => p.events.find((e) => e.event === 'role' && e.role === 'leader' && e.ts >= since)!.ts;

  for (let i = 0; i < 5; i++) spawn(`${prefix}${i}`);
  const formedMs = await until(converged, GENEROUS, () => `5 nodes never converged:\n${describeAll()}`);
  expect(alive().filter((p) => p.role === 'leader')).toHaveLength(1);

  const old = leaderProcess();
  const tokenBefore = old.leader!.token;
  const t0 = Date.now();
  killedAt.set(old, t0);
  old.signal('SIGKILL');
  await until(converged, GENEROUS, () => `no new leader after the leader's SIGKILL:\n${describeAll()}`);
  const failoverMs = becameLeaderAt(leaderProcess(), t0) - t0;
  expect(leaderProcess().leader!.token).toBeGreaterThan(tokenBefore);

  spawn(`${prefix}5`);
  const joinMs = await until(converged, GENEROUS, () => `the join of ${prefix}5 was not seen by all:\n${describeAll()}`);

  const resigning = leaderProcess();
  const t1 = Date.now();
  resigning.signal('SIGUSR2');
  await until(() => converged() && leaderProcess() !== resigning, GENEROUS, () => `no other leader after resign():\n${describeAll()}`);
  const resignMs = becameLeaderAt(leaderProcess(), t1) - t1;
  expect(resigning.events.some((e) => e.event === 'role' && e.ts >= t1 && e.role === 'follower' && e.reason === 'resigned'), describeAll()).toBe(true);
  expect(alive()).toContain(resigning);

  const leaving = leaderProcess();
  const t2 = Date.now();
  leaving.signal('SIGTERM');
  expect(await leaving.exited).toEqual({ code: 0, signal: null });
  await until(converged, GENEROUS, () => `no leader after the graceful stop:\n${describeAll()}`);
  const leaveMs = becameLeaderAt(leaderProcess(), t2) - t2;

  expect(failoverMs).toBeLessThanOrEqual(SCENARIO_T + 2 * SCENARIO_I + SLACK);
  expect(resignMs).toBeLessThanOrEqual(SCENARIO_T + SLACK);
  expect(dualLeadership(nodes, idOf, killedAt), describeAll()).toEqual([]);
  return { formedMs: Math.round(formedMs), failoverMs, joinMs: Math.round(joinMs), resignMs, leaveMs };
}

/** The pairs of processes that reported `leader` at once (a killed one's span ends at its kill). */
function dualLeadership(nodes: readonly RosterNodeProcess[], idOf: (p: RosterNodeProcess) => string, killedAt: ReadonlyMap<RosterNodeProcess, number>): string[] {
  const spans: { id: string; from: number; to: number }[] = [];
  for (const p of nodes) {
    let from: number | undefined;
    for (const e of p.events) {
      if (e.event !== 'role' && e.event !== 'stopped') continue;
      const leading = e.event === 'role' && e.role === 'leader';
      if (leading && from === undefined) from = e.ts;
      if (!leading && from !== undefined) {
        spans.push({ id: idOf(p), from, to: e.ts });
        from = undefined;
      }
    }
    if (from !== undefined) spans.push({ id: idOf(p), from, to: killedAt.get(p) ?? Date.now() });
  }
  return spans.flatMap((a, i) => spans.slice(i + 1).filter((b) => a.id !== b.id && a.from < b.to && b.from < a.to).map((b) => `${a.id}+${b.id}`));
}

/** The figures as one line for the test output. */
export function describeFigures(label: string, f: ElectionFigures): string {
  return (
    `${label}: 5 nodes agreed ${f.formedMs} ms after the spawns; failover ${f.failoverMs} ms after SIGKILL of the leader (T + 2I = ${SCENARIO_T + 2 * SCENARIO_I}); ` +
    `join seen by all in ${f.joinMs} ms; hand-over ${f.resignMs} ms after resign (SIGUSR2), ${f.leaveMs} ms after SIGTERM`
  );
}

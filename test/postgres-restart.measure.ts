/**
 * PostgreSQL restarted with an immediate shutdown (`pg_ctl stop -m immediate`: no checkpoint,
 * crash recovery at start), six times, under 5 `roster node --json` processes at I = 100 ms,
 * T = 500 ms: when one leader, followed by all, is back after the store's return (the bound is
 * T + 2I = 700 ms), and whether it is the old leader re-validating its lease or a new one.
 * `npx vitest run --config vitest.measure.config.ts postgres-restart` (from test/); prints one line
 * per run and a summary. Asserts only what must always hold: no two processes report `leader` at
 * once, and one leader comes back (the bounds of the regular suite are in stores-postgres.test.ts).
 */
import { LocalPostgres } from '@roster/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';

const I = 100;
const T = 500;
const RUNS = Number(process.env.ROSTER_RUNS ?? 6);
/** Longer than T, so that every node sees the store gone and the leader's lease lapses. */
const DOWN_MS = Number(process.env.ROSTER_DOWN_MS ?? 1500);
const WAIT = 15_000;

let server: LocalPostgres;
const nodes: RosterNodeProcess[] = [];

beforeAll(async () => {
  server = await LocalPostgres.start();
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await server?.destroy();
});

const idOf = (p: RosterNodeProcess): string => p.events[0]?.id ?? '?';
const describeAll = (): string => nodes.map((p) => p.describe()).join('\n');

/** Every node follows one leader, which is one of them and says so. */
function oneLeader(): boolean {
  const leader = nodes[0]?.leader;
  if (!leader) return false;
  return nodes.find((p) => idOf(p) === leader.id)?.role === 'leader' && nodes.every((p) => p.leader?.id === leader.id && p.leader.token === leader.token);
}

/** Pairs of processes whose `leader` role intervals (event time) overlap. */
function twoLeadersAtOnce(): string[] {
  const spans = nodes.flatMap((p) => {
    const out: { id: string; from: number; to: number }[] = [];
    let since: number | undefined;
    for (const e of p.events) {
      if (e.event !== 'role') continue;
      if (e.role === 'leader' && since === undefined) since = e.ts;
      else if (e.role !== 'leader' && since !== undefined) {
        out.push({ id: idOf(p), from: since, to: e.ts });
        since = undefined;
      }
    }
    if (since !== undefined) out.push({ id: idOf(p), from: since, to: Number.POSITIVE_INFINITY });
    return out;
  });
  return spans.flatMap((a) => spans.filter((b) => a.id < b.id && a.from < b.to && b.from < a.to).map((b) => `${a.id} and ${b.id}`));
}

it(`one leader after ${RUNS} immediate restarts of PostgreSQL`, { timeout: 600_000 }, async () => {
  for (let i = 1; i <= 5; i++) {
    nodes.push(startRoster('node', '--store', `${server.url}?application_name=roster_n${i}`, '--group', 'pgrestart', '--env', 'measure', '--id', `n${i}`, '--interval', String(I), '--timeout', String(T), '--json'));
  }
  const rows: { ms: number; how: string }[] = [];
  for (let run = 1; run <= RUNS; run++) {
    await new Promise((resolve) => setTimeout(resolve, 300 + Math.random() * 300));
    await until(oneLeader, WAIT, describeAll);
    const before = nodes[0]!.leader!;
    const stoppedAt = Date.now();
    await server.stop('immediate');
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await server.start();
    const returnedAt = Date.now();
    await until(oneLeader, WAIT, describeAll);
    const ms = Date.now() - returnedAt;
    const after = nodes[0]!.leader!;
    const how = after.token === before.token ? `${after.id} re-validated its lease` : `new leader ${after.id} (was ${before.id})`;
    rows.push({ ms, how });
    process.stdout.write(`immediate restart ${run}/${RUNS}: one leader followed by all ${ms} ms after the store's return (T + 2I = ${T + 2 * I}); ${how}\n`);
    if (ms > T + 2 * I || process.env.ROSTER_VERBOSE) {
      // Where the time went: every role and leader line since the shutdown, in ms from the return.
      for (const p of nodes) {
        const lines = p.events.flatMap((e) => {
          if (e.ts < stoppedAt) return [];
          if (e.event === 'role') return [`${e.ts - returnedAt} ${e.previous}→${e.role} (${e.reason})`];
          if (e.event === 'leader') return [`${e.ts - returnedAt} leader ${e.leader}@${e.token}`];
          return [];
        });
        process.stdout.write(`  ${idOf(p)}: ${lines.join('; ')}\n`);
        // And the store errors it logged after the return (at most 4), in ms from the return.
        const errors = p.stderr.split('\n').flatMap((l) => {
          const at = Date.parse(l.slice(0, 29));
          return Number.isNaN(at) || at < returnedAt ? [] : [`${at - returnedAt} ${l.slice(30, 200)}`];
        });
        if (errors.length > 0) process.stdout.write(`    ${errors.slice(0, 4).join('\n    ')}\n`);
      }
    }
    expect(twoLeadersAtOnce(), describeAll()).toEqual([]);
  }
  const sorted = rows.map((r) => r.ms).sort((a, b) => a - b);
  const within = rows.filter((r) => r.ms <= T + 2 * I).length;
  process.stdout.write(
    `summary: ${within} of ${RUNS} within T + 2I; ${sorted[0]}–${sorted.at(-1)} ms (median ${sorted[Math.floor(sorted.length / 2)]}); ` +
      `${rows.filter((r) => r.how.startsWith('new')).length} new leader(s); load ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}\n`,
  );
});

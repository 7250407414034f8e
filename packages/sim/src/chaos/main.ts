#!/usr/bin/env node
/**
 * `pnpm chaos`: runs generated scenarios on the simulator and checks every property.
 *
 * ```
 * pnpm chaos [--runs N] [--seed S] [--path P] [--views shared|per-node|rolling|mixed] [--max-nodes N]
 *            [--max-steps N] [--kinds KIND[,KIND…]] [--timings I/T[,I/T…]] [--mutation NAME] [--property NAME[,NAME…]]
 *            [--include-known-issues]
 * pnpm chaos --scenario '<json>' | --scenario file.json [--mutation NAME] [--ops]
 * pnpm chaos --list-mutations
 * ```
 *
 * Prints the pass count, the worst convergence time after the last fault, and the dual-leadership
 * time measured; on a failure, the shrunk scenario, its history and a one-line replay command.
 * Exits 1 when a property failed. This script is the simulator's command line, the one place in
 * `@roster/sim` that reads argv or writes to stdout.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatHistory } from '../history/formatHistory.js';
import { mutationByName, MUTATIONS } from '../mutations/index.js';
import { checkRun, PROPERTIES } from '../properties/index.js';
import type { PropertyName } from '../properties/Property.js';
import { runScenario } from '../runtime/Simulation.js';
import { checkScenario } from '../scenario/checkScenario.js';
import { ACTION_KINDS, type ActionKind } from '../scenario/Scenario.js';
import { formatScenario } from '../scenario/formatScenario.js';
import { formatFailure, runChaos, type ChaosReport, type ChaosViews, type DualLeadershipStats, type RunClass } from './runChaos.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    path: { type: 'string' },
    views: { type: 'string', default: 'mixed' },
    'max-nodes': { type: 'string' },
    'max-steps': { type: 'string' },
    timings: { type: 'string' },
    mutation: { type: 'string' },
    kinds: { type: 'string' },
    'include-known-issues': { type: 'boolean', default: false },
    property: { type: 'string' },
    scenario: { type: 'string' },
    ops: { type: 'boolean', default: false },
    'list-mutations': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

function int(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) fail(`--${name} expects a non-negative integer, got ${JSON.stringify(text)}`);
  return n;
}

function fail(message: string): never {
  process.stderr.write(`chaos: ${message}\n`);
  process.exit(2);
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function replayScenario(text: string): Promise<void> {
  const json = text.trimStart().startsWith('{') ? text : readFileSync(text, 'utf8');
  const scenario = checkScenario(JSON.parse(json) as unknown);
  const mutation = values.mutation === undefined ? undefined : mutationByName(values.mutation);
  const run = await runScenario(scenario, mutation ? { mutation } : {});
  const { violations, measures } = checkRun(run);
  process.stdout.write(`${formatScenario(scenario)}\n\n${formatHistory(run.history, { operations: values.ops, maxOperations: Infinity })}\n\n`);
  process.stdout.write(`convergence: ${measures.convergenceMs === undefined ? 'never' : `${measures.convergenceMs} ms`} after the last fault (bound ${run.bound} ms); dual leadership ${measures.dualLeadershipMs} ms\n`);
  process.stdout.write(`worst node per interval: ${measures.commandsPerInterval} store commands, ${measures.logLinesPerInterval} log lines\n`);
  for (const v of violations) process.stdout.write(`[${v.property}] at ${v.at} ms: ${v.message}\n`);
  process.exitCode = violations.length > 0 ? 1 : 0;
}

function printReport(report: ChaosReport, views: string): void {
  const out = (line = ''): void => void process.stdout.write(`${line}\n`);
  const rate = report.runs > 0 ? ` (${(report.wallMs / report.runs).toFixed(0)} ms a scenario)` : '';
  out(`passed ${report.passed} of ${report.runs} scenarios (views ${views}, seed ${report.seed}) in ${seconds(report.wallMs)}${rate}`);
  const skipped = Object.entries(report.skipped);
  if (skipped.length > 0) out(`skipped, as they may show a known open issue: ${skipped.map(([id, n]) => `${n} (${id})`).join(', ')}; --include-known-issues runs them`);
  const worst = report.worstConvergence;
  if (worst) {
    const { intervalMs: I, timeoutMs: T } = worst.scenario.timing;
    out(`worst convergence after the last fault: ${worst.ms} ms = ${(worst.ms / T).toFixed(2)} T (I = ${I} ms, T = ${T} ms; bound 2T + 6I = ${worst.boundMs} ms)`);
    out(`  in: ${JSON.stringify(worst.scenario)}`);
  }
  const label: Record<RunClass, string> = {
    shared: 'shared view, store keeps its writes',
    sharedDataLoss: 'shared view, store loses writes',
    perNode: 'per-node views',
  };
  for (const [k, d] of Object.entries(report.dualLeadership) as [RunClass, DualLeadershipStats][]) {
    out(`dual leadership (${label[k]}): ${d.totalMs} ms in total over ${d.runs} runs; ${d.withDualLeadership} runs had some, the longest ${d.longestMs} ms; ${d.tokenInversions} fencing-token inversions`);
  }
  out(`worst node per interval: ${report.worstPerInterval.commands} store commands, ${report.worstPerInterval.logLines} log lines (budget: see operation-budget)`);
  if (report.failure) {
    out();
    out(formatFailure(report.failure));
  }
}

async function main(): Promise<void> {
  if (values.help) {
    const doc = readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0]!.replace(/^[^]*?\/\*\*/, '');
    process.stdout.write(`${doc.replace(/^ \* ?/gm, '').replace(/^```\n/gm, '').trim()}\n`);
    return;
  }
  if (values['list-mutations']) {
    for (const m of MUTATIONS) process.stdout.write(`${m.name.padEnd(22)} rejected by ${m.rejectedBy.padEnd(17)} ${m.description}\n`);
    return;
  }
  if (values.scenario !== undefined) return replayScenario(values.scenario);
  const views = values.views as ChaosViews;
  if (!['shared', 'per-node', 'rolling', 'mixed'].includes(views)) fail(`--views expects shared, per-node, rolling or mixed, got ${JSON.stringify(views)}`);
  const names = values.property?.split(',') as PropertyName[] | undefined;
  for (const name of names ?? []) if (!PROPERTIES.some((p) => p.name === name)) fail(`no property called ${JSON.stringify(name)}`);
  const runs = int('runs', values.runs)!;
  const seed = int('seed', values.seed);
  const maxNodes = int('max-nodes', values['max-nodes']);
  const maxSteps = int('max-steps', values['max-steps']);
  const mutation = values.mutation === undefined ? undefined : mutationByName(values.mutation);
  const kinds = values.kinds?.split(',') as ActionKind[] | undefined;
  const timings = values.timings?.split(',').map((pair) => {
    const m = /^([1-9]\d*)\/([1-9]\d*)$/.exec(pair);
    if (!m || Number(m[2]) <= 2 * Number(m[1])) fail(`--timings expects I/T pairs in ms with T > 2I, e.g. 1000/5000,200/500; got ${JSON.stringify(pair)}`);
    return { intervalMs: Number(m![1]), timeoutMs: Number(m![2]) };
  });
  for (const k of kinds ?? []) if (!ACTION_KINDS.includes(k)) fail(`--kinds: no step kind ${JSON.stringify(k)}; try ${ACTION_KINDS.join(', ')}`);
  let last = performance.now();
  const report = await runChaos({
    runs,
    views,
    ...(seed === undefined ? {} : { seed }),
    ...(values.path === undefined ? {} : { path: values.path }),
    ...(maxNodes === undefined ? {} : { maxNodes }),
    ...(maxSteps === undefined ? {} : { maxSteps }),
    ...(mutation ? { mutation } : {}),
    ...(names ? { properties: names } : {}),
    ...(kinds ? { kinds } : {}),
    ...(timings ? { timings } : {}),
    skipKnownIssues: !values['include-known-issues'],
    onRun: (done) => {
      const now = performance.now();
      if (now - last > 10_000) {
        last = now;
        process.stderr.write(`… ${done} of ${runs}\n`);
      }
    },
  });
  printReport(report, views);
  process.exitCode = report.failure ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 2;
});

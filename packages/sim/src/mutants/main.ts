#!/usr/bin/env node
/**
 * `pnpm mutants`: checks that the test suite kills each source mutant of `packages/sim/mutants.json`.
 *
 * ```
 * pnpm mutants [--only NAME[,NAME…]] [--skip-baseline] [--timeout-min N] [--verbose] [--list]
 * ```
 *
 * Copies the repository (tracked and untracked files as they are in the work tree) to a scratch
 * directory, installs it offline and builds it, then for each mutant applies its patch, rebuilds,
 * runs its test command and restores the file. Prints a table (mutant, killed or SURVIVED, the
 * command, time) and exits 1 when a mutant survived or could not be applied. The scratch copy is
 * removed at the end. Unless `--skip-baseline`, each test command first runs once without any
 * mutant: a command that fails anyway proves nothing. `--verbose` prints the last lines of each
 * test command's output, killed mutants included (which test failed, and how).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseMutants } from './Mutant.js';
import { allKilled, formatMutantTable, runMutants } from './runMutants.js';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    'skip-baseline': { type: 'boolean', default: false },
    'timeout-min': { type: 'string', default: '30' },
    list: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`mutants: ${message}\n`);
  process.exit(2);
}

if (values.help) {
  process.stdout.write('pnpm mutants [--only NAME[,NAME…]] [--skip-baseline] [--timeout-min N] [--verbose] [--list]\n');
  process.exit(0);
}

const root = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();
const all = parseMutants(readFileSync(join(root, 'packages/sim/mutants.json'), 'utf8'));

if (values.list) {
  for (const m of all) process.stdout.write(`${m.name.padEnd(28)} ${m.file}\n${' '.repeat(29)}${m.description}\n`);
  process.exit(0);
}

const only = values.only?.split(',').map((s) => s.trim()).filter((s) => s !== '');
const unknown = only?.filter((name) => !all.some((m) => m.name === name)) ?? [];
if (unknown.length > 0) fail(`no mutant called ${unknown.join(', ')}; try one of ${all.map((m) => m.name).join(', ')}`);
const chosen = only === undefined ? all : all.filter((m) => only.includes(m.name));
const timeoutMin = Number(values['timeout-min']);
if (!(timeoutMin > 0)) fail(`--timeout-min expects a positive number, got ${JSON.stringify(values['timeout-min'])}`);

const started = Date.now();
const results = await runMutants({
  root,
  mutants: chosen,
  baseline: !values['skip-baseline'],
  timeoutMs: timeoutMin * 60_000,
  log: (line) => process.stderr.write(`mutants: ${line}\n`),
});
for (const r of results) {
  if (values.verbose || (r.outcome !== 'killed' && r.outcome !== 'killed by build')) process.stdout.write(`\n${r.mutant.name} (${r.outcome}):\n${r.detail}\n`);
}
process.stdout.write(`\n${formatMutantTable(results)}\n\n${results.filter((r) => r.outcome.startsWith('killed')).length} of ${results.length} killed in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
process.exit(allKilled(results) ? 0 : 1);

#!/usr/bin/env node
/**
 * `pnpm bench`: runs the bench, writes the JSON result and the report beside it, or, for the full
 * run of everything (or `--write-docs`), the report into docs/benchmarks.md.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { stopAllOnSignals } from '../infra/processes.js';
import { parseBenchArgs, UsageError } from '../options.js';
import { packageRoot, repoRoot } from '../paths.js';
import { reportDir, writeReport } from '../report/writeDocs.js';
import type { BenchResult } from '../result.js';
import { runBench } from '../runBench.js';

let options;
try {
  options = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message.trimEnd()}\n`);
    process.exit(error.message.startsWith('pnpm bench') ? 0 : 2);
  }
  throw error;
}
if (options.reportFrom !== undefined) {
  // pnpm runs scripts from the repository root; a relative path is taken from where pnpm was called.
  const file = resolve(process.env.INIT_CWD ?? process.cwd(), options.reportFrom);
  const saved = JSON.parse(await readFile(file, 'utf8')) as BenchResult;
  const written = await writeReport(saved, reportDir(options.writeDocs, { repoRoot, resultsDir: dirname(file) }));
  process.stderr.write(`wrote ${written.map((p) => relative(process.cwd(), p)).join(', ')} from ${file}\n`);
  process.exit(0);
}
stopAllOnSignals();
const progress = (message: string): void => {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
};
progress(`bench: ${options.mode} mode; systems ${options.systems.join(', ')}; sections ${options.sections.join(', ')}`);
const result = await runBench(options, progress);
const dir = join(packageRoot, 'results');
await mkdir(dir, { recursive: true });
const file = join(dir, `bench-${result.startedAt.replace(/[:.]/g, '-')}.json`);
const json = `${JSON.stringify(result, null, 2)}\n`;
await writeFile(file, json);
await writeFile(join(dir, 'latest.json'), json);
progress(`result: ${file}`);
const written = await writeReport(result, reportDir(options.writeDocs, { repoRoot, resultsDir: dir }));
progress(`wrote ${written.map((p) => relative(process.cwd(), p)).join(', ')}${options.writeDocs ? '' : ' (docs/ untouched: only the full run, or --write-docs, updates docs/benchmarks.md)'}`);
progress(`done in ${result.durationS} s`);

import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyMutant, patchProblem, type Mutant } from './Mutant.js';

/** What became of one mutant. */
export type MutantOutcome =
  /** The test command failed on the mutant, as it must. */
  | 'killed'
  /** The test command passed on the mutant: the suite misses this bug. */
  | 'SURVIVED'
  /** The mutant did not build: `pnpm test` (which builds first) fails on it too. */
  | 'killed by build'
  /** The test command fails even without the mutant, so its failure proves nothing. */
  | 'baseline failed'
  /** The patch does not apply: its `find` text is missing or not unique. */
  | 'invalid';

/** The result of one mutant. */
export interface MutantResult {
  readonly mutant: Mutant;
  readonly outcome: MutantOutcome;
  /** Wall time of build and test, ms. */
  readonly ms: number;
  /** Why, for `invalid` and `baseline failed`; the command's last output lines otherwise. */
  readonly detail: string;
}

/** Options of {@link runMutants}. */
export interface RunMutantsOptions {
  /** The repository root (a git work tree). */
  readonly root: string;
  readonly mutants: readonly Mutant[];
  /** Run each distinct test command once on the unmutated copy first. @defaultValue true */
  readonly baseline?: boolean;
  /** Longest a build or test command may take; a command that times out counts as failed. @defaultValue 30 min */
  readonly timeoutMs?: number;
  /** Progress lines (one per phase). */
  readonly log?: (line: string) => void;
}

/** The outcome of a shell command. */
interface Exit {
  readonly code: number;
  readonly timedOut: boolean;
  readonly tail: string;
}

/**
 * Runs `mutants` on a scratch copy of `root` (its tracked and untracked, not ignored files, as they
 * are in the work tree): installs it offline and builds it once, then for each mutant applies the
 * patch, rebuilds, runs the mutant's test command, and restores the file. The copy is removed at
 * the end, whatever happens.
 */
export async function runMutants(options: RunMutantsOptions): Promise<MutantResult[]> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 30 * 60_000;
  const dir = await mkdtemp(join(tmpdir(), 'roster-mutants-'));
  // Interrupted: end the commands still running and remove the copy before exiting.
  const cleanup = (): void => {
    for (const pid of running) killGroup(pid);
    rmSync(dir, { recursive: true, force: true });
    process.exit(130);
  };
  process.once('SIGINT', cleanup);
  process.once('SIGTERM', cleanup);
  try {
    log(`copying ${options.root} to ${dir}`);
    await copyWorkTree(options.root, dir);
    for (const command of ['pnpm install --offline --frozen-lockfile', 'pnpm run build']) {
      log(command);
      const exit = await sh(command, dir, timeoutMs);
      if (exit.code !== 0) throw new Error(`\`${command}\` failed in the scratch copy:\n${exit.tail}`);
    }
    const baselineFailures = new Map<string, string>();
    if (options.baseline ?? true) {
      for (const command of new Set(options.mutants.map((m) => m.test))) {
        log(`baseline: ${command}`);
        const exit = await sh(command, dir, timeoutMs);
        if (exit.code !== 0) baselineFailures.set(command, exit.tail);
      }
    }
    const results: MutantResult[] = [];
    for (const mutant of options.mutants) {
      results.push(await runOne(mutant, dir, timeoutMs, baselineFailures, log));
    }
    return results;
  } finally {
    process.off('SIGINT', cleanup);
    process.off('SIGTERM', cleanup);
    await rm(dir, { recursive: true, force: true });
  }
}

async function runOne(mutant: Mutant, dir: string, timeoutMs: number, baselineFailures: Map<string, string>, log: (line: string) => void): Promise<MutantResult> {
  const started = Date.now();
  const result = (outcome: MutantOutcome, detail: string): MutantResult => ({ mutant, outcome, ms: Date.now() - started, detail });
  const failedBaseline = baselineFailures.get(mutant.test);
  if (failedBaseline !== undefined) return result('baseline failed', failedBaseline);
  const path = join(dir, mutant.file);
  const original = await readFile(path, 'utf8').catch(() => undefined);
  if (original === undefined) return result('invalid', `no file ${mutant.file}`);
  const problem = patchProblem(mutant, original);
  if (problem !== undefined) return result('invalid', problem);
  log(`${mutant.name}: applying to ${mutant.file}`);
  await writeFile(path, applyMutant(mutant, original));
  try {
    const build = await sh('pnpm run build', dir, timeoutMs);
    if (build.code !== 0) return result('killed by build', build.tail);
    log(`${mutant.name}: ${mutant.test}`);
    const test = await sh(mutant.test, dir, timeoutMs);
    return result(test.code === 0 ? 'SURVIVED' : 'killed', test.timedOut ? `timed out after ${timeoutMs} ms` : test.tail);
  } finally {
    await writeFile(path, original);
  }
}

/** Copies the work tree's tracked and untracked (not ignored) files, as they are now. */
async function copyWorkTree(root: string, to: string): Promise<void> {
  const listing = await capture('git ls-files -z --cached --others --exclude-standard', root);
  for (const file of listing.split('\0')) {
    if (file === '') continue;
    const from = join(root, file);
    const info = await stat(from).catch(() => undefined);
    if (info?.isFile()) await cp(from, join(to, file));
  }
}

async function capture(command: string, cwd: string): Promise<string> {
  const exit = await sh(command, cwd, 60_000, Number.POSITIVE_INFINITY);
  if (exit.code !== 0) throw new Error(`\`${command}\` failed in ${cwd}:\n${exit.tail}`);
  return exit.tail;
}

/** Process groups of the commands running now. */
const running = new Set<number>();

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Runs `command` in a shell in its own process group (so that a timeout ends all of it) and
 * keeps the last `keepLines` lines of its output.
 */
function sh(command: string, cwd: string, timeoutMs: number, keepLines = 30): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(command, { cwd, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: undefined, NO_COLOR: '1' } });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.length > 1_000_000 && Number.isFinite(keepLines)) output = output.slice(-200_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const pid = child.pid!;
    running.add(pid);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid);
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(pid);
      const tail = Number.isFinite(keepLines) ? output.trimEnd().split('\n').slice(-keepLines).join('\n') : output;
      resolve({ code: timedOut ? 124 : (code ?? 1), timedOut, tail });
    });
  });
}

/** The results as a table: mutant — outcome — by which command — time. */
export function formatMutantTable(results: readonly MutantResult[]): string {
  const rows = [
    ['mutant', 'result', 'by', 'time'],
    ...results.map((r) => [r.mutant.name, r.outcome, r.outcome === 'invalid' ? '-' : r.mutant.test, `${(r.ms / 1000).toFixed(1)} s`]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  return rows.map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  ')).join('\n');
}

/** True when every mutant was killed (by its test command or by the build). */
export function allKilled(results: readonly MutantResult[]): boolean {
  return results.every((r) => r.outcome === 'killed' || r.outcome === 'killed by build');
}

/**
 * The demo (`pnpm demo`) as a real process for tests: started from its built entry point with a
 * unique mark in its environment, so that every process it starts (nodes, redis-server) can be
 * found and killed afterwards, even when a test fails.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `pnpm demo` without the build: the private @roster/demo's built entry point, run non-interactively (stdout is a pipe). */
const DEMO = fileURLToPath(new URL('../../packages/demo/dist/main.js', import.meta.url));

export interface DemoRun {
  readonly child: ReturnType<typeof spawn>;
  readonly mark: string;
  output: string;
  readonly exited: Promise<number | string>;
}

const runs: DemoRun[] = [];

/** Kills every demo started by {@link startDemo} and whatever it left behind (call it in `afterEach`). */
export async function stopDemos(): Promise<void> {
  for (const run of runs.splice(0)) {
    run.child.kill('SIGKILL');
    await run.exited;
    for (const pid of processesMarked(run.mark)) process.kill(pid, 'SIGKILL');
  }
}

/**
 * Starts the demo with a unique mark in its environment: every process it starts inherits it, so
 * {@link processesMarked} finds any left behind.
 */
export function startDemo(...args: string[]): DemoRun {
  const mark = randomUUID();
  // A process group of its own, so that a test can send SIGINT to the group as a terminal's Ctrl-C does.
  const child = spawn(process.execPath, [DEMO, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ROSTER_DEMO_TEST_MARK: mark },
    detached: true,
  });
  const run: DemoRun = {
    child,
    mark,
    output: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1))),
  };
  child.stdout!.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (run.output += chunk.toString()));
  runs.push(run);
  return run;
}

/** The pids of live processes whose environment holds `ROSTER_DEMO_TEST_MARK=<mark>` (Linux /proc). */
export function processesMarked(mark: string): number[] {
  const needle = `ROSTER_DEMO_TEST_MARK=${mark}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const env = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (env.split('\0').includes(needle) && !readFileSync(`/proc/${entry}/stat`, 'latin1').includes(') Z ')) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** The numbers in the summary's failover line. */
export function failovers(output: string): { measured: number; kills: number; min?: number; median?: number; max?: number } {
  const m = /failovers: (\d+) of (\d+) leader kills(?:, min ([\d.]+) s, median ([\d.]+) s, max ([\d.]+) s)?/.exec(output);
  if (!m) throw new Error(`no failover line in the summary:\n${output}`);
  return {
    measured: Number(m[1]),
    kills: Number(m[2]),
    ...(m[3] !== undefined && { min: Number(m[3]), median: Number(m[4]), max: Number(m[5]) }),
  };
}


/**
 * Every child process the bench starts goes through {@link spawnTracked}, so that one place can
 * end them all: on a normal finish, on an error, on Ctrl-C (SIGINT), on SIGTERM, and as a last
 * resort when the bench process exits.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { createInterface } from 'node:readline';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of live) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
}

/**
 * For the bench's main program: on SIGINT (Ctrl-C), SIGTERM or SIGHUP, stop every tracked
 * process, then exit (130 or 143). A second signal while stopping exits at once (the exit hook
 * still SIGKILLs what is left).
 */
export function stopAllOnSignals(): void {
  installExitHook();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      const code = signal === 'SIGINT' ? 130 : 143;
      if (stopping) process.exit(code);
      stopping = true;
      process.stderr.write(`\nbench: ${signal}, stopping ${live.size} processes\n`);
      void killAll()
        .then(() => Promise.allSettled([...afterSignal].map((fn) => fn())))
        .finally(() => process.exit(code));
    });
  }
}
let stopping = false;
const afterSignal = new Set<() => Promise<void>>();

/**
 * Registers a cleanup (e.g. removing a temp directory) to run after the processes are gone when
 * the bench is stopped by a signal; returns the function that unregisters it.
 */
export function onSignalCleanup(fn: () => Promise<void>): () => void {
  afterSignal.add(fn);
  return () => afterSignal.delete(fn);
}

/** A child process with its stdout read line by line. */
export interface Tracked {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** The last few kB of stderr, for error messages. */
  stderrTail(): string;
}

/** Options of {@link spawnTracked}. */
export interface SpawnTrackedOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Called with every line of stdout. */
  readonly onLine?: (line: string) => void;
  /** Keep an IPC channel open (for `process.send` from a Node child). @defaultValue false */
  readonly ipc?: boolean;
}

/** Spawns `file args` and tracks it until it exits. */
export function spawnTracked(file: string, args: readonly string[], options: SpawnTrackedOptions = {}): Tracked {
  installExitHook();
  const spawnOptions: SpawnOptions = {
    stdio: options.ipc ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'],
    env: options.env ?? process.env,
    ...(options.cwd && { cwd: options.cwd }),
  };
  const child = spawn(file, [...args], spawnOptions);
  live.add(child);
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  });
  if (options.onLine) {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', options.onLine);
  } else {
    child.stdout!.resume();
  }
  child.stdin!.on('error', () => {});
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
    child.once('error', (error) => {
      live.delete(child);
      tail += `\n${error.message}`;
      resolve('spawn-error');
    });
  });
  return { child, pid: child.pid ?? -1, exited, stderrTail: () => tail };
}

/** True while the process has not exited. */
export function isRunning(tracked: Tracked): boolean {
  return tracked.child.exitCode === null && tracked.child.signalCode === null;
}

/** SIGCONT + SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function terminate(tracked: Tracked, graceMs = 3000): Promise<void> {
  if (!isRunning(tracked)) return;
  tracked.child.kill('SIGCONT');
  tracked.child.kill('SIGTERM');
  const timer = setTimeout(() => tracked.child.kill('SIGKILL'), graceMs);
  await tracked.exited;
  clearTimeout(timer);
}

/** SIGKILL; resolves once the process is gone. */
export async function kill(tracked: Tracked): Promise<void> {
  if (!isRunning(tracked)) return;
  tracked.child.kill('SIGKILL');
  await tracked.exited;
}

/** Ends every tracked process: SIGTERM, then SIGKILL after a short grace. */
export async function killAll(graceMs = 2000): Promise<void> {
  const children = [...live];
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGCONT');
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
        }),
    ),
  );
}

/** How many tracked processes are still running. */
export function liveCount(): number {
  return live.size;
}

/**
 * `roster node --json` processes for tests: spawn the built bin, parse every stdout line as the
 * JSON contract of docs/cli.md, derive what each node sees, signal it, and kill whatever is left
 * with {@link killAllNodes} (call it in `afterEach`, so that a failing test leaves no process).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { NodeEvent } from '@roster/cli';
import { waitFor } from '@roster/testing';

/** The built `roster` bin of `@roster/cli` (`pnpm build` first). */
export const ROSTER_BIN = fileURLToPath(new URL('../../packages/cli/dist/bin/roster.js', import.meta.url));

const running = new Set<RosterNodeProcess>();
process.once('exit', () => {
  for (const p of running) p.child.kill('SIGKILL');
});

/** How a process ended: its exit code, or the signal that killed it. */
export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A running `roster` process. */
export class RosterNodeProcess {
  readonly child: ChildProcess;
  /** Every stdout line, raw. */
  readonly lines: string[] = [];
  /** Every stdout line that parsed as JSON. */
  readonly events: NodeEvent[] = [];
  stderr = '';
  readonly exited: Promise<Exit>;
  readonly #args: readonly string[];
  #partial = '';

  /** `env` is added to this process's environment. */
  constructor(args: readonly string[], env: Readonly<Record<string, string>> = {}) {
    this.#args = args;
    this.child = spawn(process.execPath, [ROSTER_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    running.add(this);
    this.child.stdout!.on('data', (chunk: Buffer) => this.#take(chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        running.delete(this);
        resolve({ code, signal });
      });
    });
  }

  #take(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop()!;
    for (const line of parts) {
      this.lines.push(line);
      try {
        this.events.push(JSON.parse(line) as NodeEvent);
      } catch {
        // Kept in `lines`; the contract test reports it.
      }
    }
  }

  /** The role from the last role line. */
  get role(): string | undefined {
    return this.#last('role')?.role;
  }

  /** The leader from the last leader line (`null`: none; `undefined`: no line yet). */
  get leader(): { id: string; era: number; token: bigint } | null | undefined {
    const e = this.#last('leader');
    if (!e) return undefined;
    return e.leader === null ? null : { id: e.leader, era: e.era!, token: BigInt(e.token!) };
  }

  /** The members from the last members line. */
  get members(): readonly string[] {
    return this.#last('members')?.members ?? [];
  }

  #last<E extends NodeEvent['event']>(event: E): Extract<NodeEvent, { event: E }> | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      if (this.events[i]!.event === event) return this.events[i] as Extract<NodeEvent, { event: E }>;
    }
    return undefined;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** What the process printed, for failure messages. */
  describe(): string {
    return `roster ${this.#args.join(' ')}\n--- stdout\n${this.lines.join('\n')}\n--- stderr\n${this.stderr}`;
  }
}

/** Starts `roster` with `args` (e.g. `['node', '--json', …]`). */
/** The status page URL a `roster node --status-port` process logs at start, once it has. */
export async function statusUrl(p: RosterNodeProcess, timeoutMs = 20_000): Promise<string> {
  const pattern = /status page url=(http:\/\/127\.0\.0\.1:\d+\/)/;
  await until(() => pattern.test(p.stderr), timeoutMs, () => p.describe());
  return pattern.exec(p.stderr)![1]!;
}

export function startRoster(...args: string[]): RosterNodeProcess {
  return new RosterNodeProcess(args);
}

/** Starts `roster` with `args` and `env` added to the environment. */
export function startRosterWithEnv(env: Readonly<Record<string, string>>, ...args: string[]): RosterNodeProcess {
  return new RosterNodeProcess(args, env);
}

/** Runs `roster` with `args` to its end (SIGKILL after `timeoutMs`), `env` added to the environment. */
export async function runRoster(args: string[], timeoutMs = 20_000, env: Readonly<Record<string, string>> = {}): Promise<{ exit: Exit; stdout: string; stderr: string }> {
  const p = new RosterNodeProcess(args, env);
  const timer = setTimeout(() => p.signal('SIGKILL'), timeoutMs);
  const exit = await p.exited;
  clearTimeout(timer);
  return { exit, stdout: p.lines.join('\n'), stderr: p.stderr };
}

/** Waits until `predicate` holds and returns the time it took; throws `describe()` after `timeoutMs`. */
export function until(predicate: () => boolean, timeoutMs: number, describe: () => string): Promise<number> {
  return waitFor(predicate, { what: describe, timeoutMs, everyMs: 25 });
}

/** SIGKILLs every `roster` process still running and waits for them to go. */
export async function killAllNodes(): Promise<void> {
  const left = [...running];
  for (const p of left) p.child.kill('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}

/**
 * The nodes of a run: N processes, each started from a command template, each with its own
 * {@link FaultProxy} (its link) and the `netRoute` hook that sends its connections through it.
 * Every stdout line is handed to the observer as it is read; a line that is not a JSON object of
 * the contract is kept aside (a broken implementation's output), not thrown on.
 *
 * The template's words may hold placeholders, replaced per node: `{store}` `{group}` `{env}`
 * `{id}` `{interval}` `{timeout}` `{renewDeadline}` `{register}`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { NodeEvent } from '@roster/client';
import { FaultProxy } from './FaultProxy.js';
import { GATEWAY_ENV } from './netRoute.js';

/** The values of a template's placeholders that are the same for every node. */
export interface NodeCommandValues {
  readonly store: string;
  readonly group: string;
  readonly env: string;
  readonly interval: number;
  readonly timeout: number;
  readonly renewDeadline: number;
  readonly register: string;
}

/** The command of the default node program of `@roster/verify` (see `verifyNode.ts`). */
export function defaultNodeCommand(): string[] {
  const program = new URL('../node/verifyNode.js', import.meta.url).pathname;
  return [
    process.execPath,
    program,
    '--store',
    '{store}',
    '--group',
    '{group}',
    '--env',
    '{env}',
    '--id',
    '{id}',
    '--interval',
    '{interval}',
    '--timeout',
    '{timeout}',
    '--renew-deadline',
    '{renewDeadline}',
    '--register',
    '{register}',
  ];
}

/** Replaces the placeholders of `template` for the node `id`. */
export function expandCommand(template: readonly string[], values: NodeCommandValues, id: string): string[] {
  const table: Record<string, string> = {
    store: values.store,
    group: values.group,
    env: values.env,
    id,
    interval: String(values.interval),
    timeout: String(values.timeout),
    renewDeadline: String(values.renewDeadline),
    register: values.register,
  };
  return template.map((word) => word.replace(/\{(\w+)\}/g, (all, name: string) => table[name] ?? all));
}

/** What a node process reports to the run. */
export interface NodeListener {
  /** A line of the contract, read now. */
  onEvent(node: string, event: NodeEvent): void;
  /** A line that is not one (kept for the report). */
  onJunk?(node: string, line: string): void;
  /** The process exited though nobody killed or stopped it (a crash), with the end of its stderr. */
  onCrash?(node: string, exit: { code: number | null; signal: NodeJS.Signals | null }, stderr: string): void;
}

const HOOK = new URL('./netRoute.js', import.meta.url).href;
const STDERR_KEPT = 4096;

/** One node of the run: its id, its link, and its process (started again after a kill). */
export class NodeSlot {
  readonly id: string;
  readonly link: FaultProxy;
  readonly #argv: readonly string[];
  readonly #listener: NodeListener;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  #stderr = '';
  #starts = 0;
  /** True once the run sent the process SIGKILL or SIGTERM: its exit is expected. */
  #ending = false;

  constructor(id: string, link: FaultProxy, argv: readonly string[], listener: NodeListener) {
    this.id = id;
    this.link = link;
    this.#argv = argv;
    this.#listener = listener;
  }

  /** True while the process runs (a paused one runs). */
  get alive(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** How many times the process was started. */
  get starts(): number {
    return this.#starts;
  }

  /** The last few KB the process wrote on stderr, for the report. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Starts the process (again). */
  start(): void {
    if (this.alive) return;
    this.#starts++;
    this.#ending = false;
    this.#stderr = '';
    const [command, ...args] = this.#argv;
    const nodeOptions = [process.env.NODE_OPTIONS, `--import=${HOOK}`].filter(Boolean).join(' ');
    const child = spawn(command!, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_OPTIONS: nodeOptions, [GATEWAY_ENV]: String(this.link.port) },
    });
    this.#child = child;
    let partial = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (text: string) => {
      const parts = (partial + text).split('\n');
      partial = parts.pop()!;
      for (const line of parts) this.#take(line);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      this.#stderr = (this.#stderr + text).slice(-STDERR_KEPT);
    });
    child.on('error', (error) => {
      this.#stderr = `${this.#stderr}\n${error.message}`.slice(-STDERR_KEPT);
    });
    this.#exited = new Promise((resolve) =>
      child.once('close', (code, signal) => {
        if (!this.#ending) this.#listener.onCrash?.(this.id, { code, signal }, this.#stderr);
        resolve();
      }),
    );
  }

  /** Sends `signal` to the process, if it runs. */
  signal(signal: NodeJS.Signals): void {
    if (signal === 'SIGKILL' || signal === 'SIGTERM' || signal === 'SIGINT') this.#ending = true;
    if (this.alive) this.#child!.kill(signal);
  }

  /** Resolves once the process has exited (at once when none runs). */
  exited(): Promise<void> {
    return this.#exited;
  }

  /** Stops the process: SIGCONT and SIGTERM, then SIGKILL after `graceMs`. Resolves once it is gone. */
  async stop(graceMs: number): Promise<void> {
    if (!this.alive) return this.#exited;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }

  #take(line: string): void {
    const text = line.trim();
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (isNodeEvent(value)) this.#listener.onEvent(this.id, value);
    else this.#listener.onJunk?.(this.id, text);
  }
}

function isNodeEvent(value: unknown): value is NodeEvent {
  if (typeof value !== 'object' || value === null) return false;
  const event = (value as { event?: unknown }).event;
  return event === 'role' || event === 'leader' || event === 'members' || event === 'stopped';
}

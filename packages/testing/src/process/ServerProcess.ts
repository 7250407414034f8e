import { spawn, type ChildProcess } from 'node:child_process';
import { waitFor } from './waitFor.js';

/** Every server process running now, SIGKILLed when this process exits, as a last resort. */
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const running of live) running.kill('SIGKILL');
    });
  }
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/**
 * The one process-supervision fixture of Roster's tests, bench and demo: one local server process
 * (a `redis-server`, a sentinel, an `etcd` member) in a process group of its own, so that a Ctrl-C
 * meant for the parent does not reach it; started and awaited until it answers, its last output
 * kept for error messages, stopped gracefully or killed, paused and resumed with signals, started
 * again after it ended, and SIGKILLed when this process exits, as a last resort. Every local server
 * of this package runs on it ({@link LocalRedis}, `LocalRedisCluster`, `LocalRedisSentinel`,
 * `LocalEtcd`); use it directly for a server none of them starts (a TLS `redis-server`, say).
 *
 * @example
 * ```ts
 * const server = new ServerProcess('/usr/bin/redis-server', `redis-server on port ${port}`);
 * await server.start(['--port', String(port)], async () => (await redisCommand(port, ['PING'])) === 'PONG', 10_000);
 * try {
 *   // …
 * } finally {
 *   await server.stop();
 * }
 * ```
 */
export class ServerProcess {
  #child: ChildProcess | undefined;
  #output = '';

  /** `name` says which server it is in messages, e.g. `"redis-server on port 7000"`. */
  constructor(
    private readonly binary: string,
    readonly name: string,
  ) {}

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /** The last lines the server wrote, for error messages. */
  get output(): string {
    return this.#output;
  }

  /**
   * Spawns the server with `argv` and resolves once `ready()` answers true; kills it and rejects
   * when it exits first, cannot be run, or is not ready within `timeoutMs`.
   */
  async start(argv: readonly string[], ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    if (this.#child) return;
    const child = spawn(this.binary, argv, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.#child = child;
    this.#output = '';
    track(child);
    const ended = new AbortController();
    const keep = (chunk: Buffer): void => void (this.#output = (this.#output + chunk.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (error) => {
      if (this.#child === child) this.#child = undefined;
      ended.abort(new Error(`cannot run ${this.binary}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      if (this.#child === child) this.#child = undefined;
      ended.abort(new Error(`${this.name} exited with ${code ?? signal}:\n${this.#output}`));
    });
    try {
      await waitFor(ready, { what: `${this.name} to answer`, timeoutMs, signal: ended.signal });
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  /**
   * Stops the server gracefully: SIGCONT (a paused server could not act on it) then `signal`, and
   * SIGKILL if it is still running after `graceMs`; resolves once it is gone. Does nothing when it
   * is not running.
   */
  async stop(options: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT');
    child.kill(options.signal ?? 'SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), options.graceMs ?? 5000);
    await gone;
    clearTimeout(force);
  }

  /** SIGKILLs the server (paused or not) and resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child) return;
    this.#child = undefined;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await gone;
  }

  /** Sends `signal` (SIGSTOP, SIGCONT) to the running server; does nothing when it is not running. */
  signal(signal: NodeJS.Signals): void {
    this.#child?.kill(signal);
  }
}

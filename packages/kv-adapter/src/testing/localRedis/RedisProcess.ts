import { spawn, type ChildProcess } from 'node:child_process';
import { redisCommand } from './redisCommand.js';
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
 * One `redis-server` process on a fixed port, in a process group of its own (a Ctrl-C meant for
 * the parent does not reach it), that can be started again after it was killed. Internal to
 * {@link LocalRedisCluster} and `LocalRedisSentinel`. With `configFile`, the server reads that file
 * first (a sentinel needs one it can rewrite).
 */
export class RedisProcess {
  #child: ChildProcess | undefined;
  #output = '';

  constructor(
    private readonly binary: string,
    readonly port: number,
    private readonly args: readonly string[],
    private readonly configFile?: string,
  ) {}

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get running(): boolean {
    return this.#child !== undefined;
  }

  /**
   * Spawns the server (with `extraArgs` after its own arguments, this run only) and resolves once
   * it answers PING; kills it and rejects on failure.
   */
  async start(timeoutMs = 10_000, extraArgs: readonly string[] = []): Promise<void> {
    if (this.#child) return;
    const argv = [...(this.configFile === undefined ? [] : [this.configFile]), '--port', String(this.port), ...this.args, ...extraArgs];
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
      ended.abort(new Error(`${this.binary} on port ${this.port} exited with ${code ?? signal}:\n${this.#output}`));
    });
    try {
      await waitFor(async () => (await redisCommand(this.port, ['PING'], { timeoutMs: 500 })) === 'PONG', {
        what: `redis-server on port ${this.port} to answer PING`,
        timeoutMs,
        signal: ended.signal,
      });
    } catch (error) {
      await this.kill();
      throw error;
    }
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

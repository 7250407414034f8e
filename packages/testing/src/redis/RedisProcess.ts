import { ServerProcess } from '../process/ServerProcess.js';
import { redisCommand } from './redisCommand.js';

/**
 * One `redis-server` process on a fixed port, in a process group of its own (a Ctrl-C meant for
 * the parent does not reach it), that can be started again after it was killed: a
 * {@link ServerProcess} that is ready when it answers PING. Internal to `LocalRedis`,
 * `LocalRedisCluster` and `LocalRedisSentinel`. With `configFile`, the server reads that file
 * first (a sentinel needs one it can rewrite).
 */
export class RedisProcess {
  readonly #server: ServerProcess;

  constructor(
    binary: string,
    readonly port: number,
    private readonly args: readonly string[],
    private readonly configFile?: string,
  ) {
    this.#server = new ServerProcess(binary, `redis-server on port ${port}`);
  }

  get pid(): number | undefined {
    return this.#server.pid;
  }

  get running(): boolean {
    return this.#server.running;
  }

  /**
   * Spawns the server (with `extraArgs` after its own arguments, this run only) and resolves once
   * it answers PING; kills it and rejects on failure.
   */
  async start(timeoutMs = 10_000, extraArgs: readonly string[] = []): Promise<void> {
    const argv = [...(this.configFile === undefined ? [] : [this.configFile]), '--port', String(this.port), ...this.args, ...extraArgs];
    await this.#server.start(argv, () => answers(this.port), timeoutMs);
  }

  /** SIGTERMs the server (SIGKILL after `graceMs`) and resolves once it is gone. */
  stop(options: { graceMs?: number } = {}): Promise<void> {
    return this.#server.stop(options);
  }

  /** The last lines the server wrote, for error messages. */
  get output(): string {
    return this.#server.output;
  }

  /** SIGKILLs the server (paused or not) and resolves once it is gone. */
  kill(): Promise<void> {
    return this.#server.kill();
  }

  /** Sends `signal` (SIGSTOP, SIGCONT) to the running server; does nothing when it is not running. */
  signal(signal: NodeJS.Signals): void {
    this.#server.signal(signal);
  }
}

/**
 * True when the server on `port` answers: `PONG`, or `NOAUTH` from a server that requires a
 * password (`--requirepass`), which is up all the same. Rejects while it does not answer.
 */
async function answers(port: number): Promise<boolean> {
  try {
    return (await redisCommand(port, ['PING'], { timeoutMs: 500 })) === 'PONG';
  } catch (error) {
    if (error instanceof Error && /^NOAUTH\b/.test(error.message)) return true;
    throw error;
  }
}

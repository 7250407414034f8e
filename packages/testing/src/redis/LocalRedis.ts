import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@roster/kv-adapter';
import { LOOPBACK_HOST, freeLoopbackPort } from '../process/loopback.js';
import { requireRedisServer } from './findRedisServer.js';
import { RedisProcess } from './RedisProcess.js';
import { redisCommand, type RedisCommandOptions } from './redisCommand.js';

/** Options of {@link LocalRedis.start}. */
export interface LocalRedisOptions {
  /** The `redis-server` binary. @defaultValue {@link findRedisServer}'s */
  readonly binary?: string;
  /** Extra `redis-server` arguments, e.g. `['--maxmemory', '1mb']` or `['--maxclients', '20000']`. */
  readonly args?: readonly string[];
  /** The port. @defaultValue a free loopback port */
  readonly port?: number;
  /** How long the server has to answer PING, at start and restart. @defaultValue 10000 */
  readonly readyTimeoutMs?: number;
}

/**
 * One real `redis-server` on a loopback port, for tests, the bench and the demo: nothing
 * persisted (`--save '' --appendonly no`), its working directory a fresh temp directory, run by
 * the one process fixture ({@link ServerProcess}: a process group of its own, SIGKILLed when this
 * process exits).
 *
 * Faults: {@link LocalRedis.kill} (SIGKILL, as a crash), {@link LocalRedis.pause} (SIGSTOP: the
 * connections stay open, nothing answers), {@link LocalRedis.restart} on the same port, empty or
 * with its data.
 *
 * @example
 * ```ts
 * const redis = await LocalRedis.start();
 * try {
 *   const kv = await connectStore(redis.url);
 *   await redis.kill(); // kv's operations now fail with StoreUnavailableError
 *   await redis.restart();
 * } finally {
 *   await redis.stop();
 * }
 * ```
 */
export class LocalRedis {
  /** The host the server listens on: {@link LOOPBACK_HOST}. */
  readonly host = LOOPBACK_HOST;
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  /** The server's working directory (a temp directory, removed by {@link LocalRedis.stop}). */
  readonly dir: string;
  /** The `redis-server` binary it runs. */
  readonly binary: string;
  readonly #process: RedisProcess;
  readonly #readyTimeoutMs: number;
  #stopped: Promise<void> | undefined;

  private constructor(binary: string, port: number, dir: string, args: readonly string[], readyTimeoutMs: number) {
    this.binary = binary;
    this.port = port;
    this.dir = dir;
    this.url = `redis://${LOOPBACK_HOST}:${port}`;
    this.#readyTimeoutMs = readyTimeoutMs;
    const own = ['--bind', LOOPBACK_HOST, '--dir', dir, '--dbfilename', 'dump.rdb', '--save', '', '--appendonly', 'no', '--daemonize', 'no'];
    this.#process = new RedisProcess(binary, port, [...own, ...args]);
  }

  /**
   * Starts a server and resolves once it answers PING. On failure it kills what it started,
   * removes the temp directory and rejects (with the server's last output).
   *
   * @throws {@link ConfigError} for a bad option; Error when no `redis-server` is found.
   */
  static async start(options: LocalRedisOptions = {}): Promise<LocalRedis> {
    if (options.binary !== undefined && (typeof options.binary !== 'string' || options.binary === '')) {
      throw new ConfigError('binary', options.binary, 'Expected `binary` to be the path of a redis-server');
    }
    const readyTimeoutMs = options.readyTimeoutMs ?? 10_000;
    if (!Number.isFinite(readyTimeoutMs) || readyTimeoutMs <= 0) throw new ConfigError('readyTimeoutMs', readyTimeoutMs, 'Expected `readyTimeoutMs` to be a positive number of milliseconds');
    const binary = options.binary ?? requireRedisServer('LocalRedis');
    const dir = await mkdtemp(join(tmpdir(), 'roster-redis-'));
    try {
      const port = options.port ?? (await freeLoopbackPort());
      const server = new LocalRedis(binary, port, dir, options.args ?? [], readyTimeoutMs);
      await server.#process.start(readyTimeoutMs);
      return server;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The server's process id while it runs. */
  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** True while the server runs (paused or not). */
  get running(): boolean {
    return this.#process.running;
  }

  /** Sends one command to the server ({@link redisCommand}) and resolves with its reply. */
  command(args: readonly (string | number)[], options: Omit<RedisCommandOptions, 'host'> = {}): Promise<unknown> {
    return redisCommand(this.port, args, options);
  }

  /** SIGKILLs the server, as a crash; {@link LocalRedis.restart} brings it back. */
  kill(): Promise<void> {
    return this.#process.kill();
  }

  /** Freezes the server with SIGSTOP: connections stay open, nothing answers. */
  pause(): void {
    this.#process.signal('SIGSTOP');
  }

  /** Undoes {@link LocalRedis.pause} with SIGCONT. */
  resume(): void {
    this.#process.signal('SIGCONT');
  }

  /**
   * Stops the server (when it runs) and starts it again on the same port, resolving once it answers
   * PING. The data is lost, as on a server without persistence, unless `keepData`: then it is
   * `SAVE`d first (when the server runs) and loaded again.
   */
  async restart(options: { keepData?: boolean } = {}): Promise<void> {
    if (this.#stopped) throw new Error(`LocalRedis on port ${this.port}: restart() after stop()`);
    if (this.running) {
      this.resume();
      if (options.keepData) await this.command(['SAVE'], { timeoutMs: 10_000 });
      await this.#process.stop();
    }
    if (!options.keepData) await rm(join(this.dir, 'dump.rdb'), { force: true });
    await this.#process.start(this.#readyTimeoutMs);
  }

  /** Stops the server gracefully (SIGTERM, SIGKILL after 5 s) and removes its directory. Idempotent. */
  stop(): Promise<void> {
    return (this.#stopped ??= (async () => {
      await this.#process.stop();
      await rm(this.dir, { recursive: true, force: true });
    })());
  }

  /** Calls {@link LocalRedis.stop}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

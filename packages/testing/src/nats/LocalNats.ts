import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@roster/kv-adapter';
import { freeLoopbackPort } from '../process/loopback.js';
import { NatsServer } from './NatsServer.js';

/** Options of {@link LocalNats.start}. */
export interface LocalNatsOptions {
  /** The `nats-server` binary to run. @defaultValue Debian's `/usr/sbin/nats-server` when present, else `"nats-server"` on the PATH */
  readonly binary?: string;
  /**
   * The server's `max_payload`. NATS' own default is 1 MiB, which leaves no room for a value of
   * Roster's default `maxValueBytes` (1 MiB) and its key. @defaultValue 2 MiB
   */
  readonly maxPayloadBytes?: number;
  /** Clients must present these credentials: a user and password, or a token. */
  readonly auth?: { readonly user: string; readonly password: string } | { readonly token: string };
  /**
   * Serve clients over TLS only (see {@link LocalNats.url}, which then says `tls://`): the server's
   * certificate and key files, and, with `caFile`, client certificates required and verified
   * against that CA.
   */
  readonly tls?: { readonly certFile: string; readonly keyFile: string; readonly caFile?: string };
  /** How long to wait for JetStream to be ready. @defaultValue 15000 */
  readonly readyTimeoutMs?: number;
  /** The directory under which the temp directory is made. @defaultValue the OS temp directory */
  readonly parentDir?: string;
}

/**
 * One local `nats-server` with JetStream, for tests, benchmarks and demos: a free loopback port,
 * its store in a temp directory, watched through its monitoring port. It can be stopped, killed
 * (SIGKILL), restarted with its data, and frozen (SIGSTOP) and thawed.
 *
 * @example
 * ```ts
 * const nats = await LocalNats.start({ binary: '/usr/bin/nats-server' });
 * try {
 *   const kv = await NatsKV.connect({ url: nats.url('my-app') });
 *   await nats.kill();
 *   await nats.restart(); // the bucket is still there
 * } finally {
 *   await nats.stop();
 * }
 * ```
 */
export class LocalNats {
  readonly #dir: string;
  readonly #server: NatsServer;
  readonly #readyTimeoutMs: number;

  private constructor(dir: string, server: NatsServer, readyTimeoutMs: number) {
    this.#dir = dir;
    this.#server = server;
    this.#readyTimeoutMs = readyTimeoutMs;
  }

  /**
   * Starts the server and resolves once JetStream is ready. On failure it kills what it started,
   * removes the temp directory and rejects.
   *
   * @throws {@link ConfigError} when an option is out of range.
   */
  static async start(options: LocalNatsOptions = {}): Promise<LocalNats> {
    const { binary, maxPayloadBytes, readyTimeoutMs } = resolveCommon(options);
    const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), 'roster-nats-'));
    const server = new NatsServer(binary, {
      name: 'n0',
      port: await freeLoopbackPort(),
      monitorPort: await freeLoopbackPort(),
      dir,
      maxPayloadBytes,
      ...(options.auth && { auth: options.auth }),
      ...(options.tls && { tls: options.tls }),
    });
    const nats = new LocalNats(dir, server, readyTimeoutMs);
    try {
      await server.start(readyTimeoutMs);
      return nats;
    } catch (error) {
      await nats.stop();
      throw error;
    }
  }

  /** The client port. */
  get port(): number {
    return this.#server.config.port;
  }

  /** The process id while it runs. */
  get pid(): number | undefined {
    return this.#server.process.pid;
  }

  /**
   * The store URL NatsKV takes: `nats://127.0.0.1:port/bucket` (`tls://` when started with TLS),
   * with `user:password@` or `token@` when started with `auth` and `withAuth` is true.
   */
  url(bucket = '', withAuth = true): string {
    const { auth, tls } = this.#server.config;
    const credentials = !withAuth || !auth ? '' : 'token' in auth ? `${encodeURIComponent(auth.token)}@` : `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@`;
    return `${tls ? 'tls' : 'nats'}://${credentials}${this.#server.address}${bucket ? `/${bucket}` : ''}`;
  }

  /** SIGKILLs the server, as a crash (a frozen one too); resolves once it is gone. */
  kill(): Promise<void> {
    return this.#server.process.kill();
  }

  /** Starts the server again with its data (after {@link kill} or {@link shutdown}); resolves once JetStream is ready. */
  restart(): Promise<void> {
    return this.#server.start(this.#readyTimeoutMs);
  }

  /** Stops the server gracefully (SIGTERM), keeping its data for {@link restart}. */
  shutdown(): Promise<void> {
    return this.#server.process.stop();
  }

  /** Freezes the server with SIGSTOP (its connections stay open, nothing answers); resolves once it is stopped. */
  freeze(): Promise<void> {
    return this.#server.freeze();
  }

  /** Undoes {@link freeze} with SIGCONT. */
  thaw(): void {
    this.#server.process.signal('SIGCONT');
  }

  /** Kills the server and removes its directory. Idempotent. */
  async stop(): Promise<void> {
    await this.#server.process.kill();
    await rm(this.#dir, { recursive: true, force: true });
  }

  /** Calls {@link stop}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }
}

const DEBIAN_BINARY = '/usr/sbin/nats-server';

/** The options {@link LocalNats} and `LocalNatsCluster` share, validated. */
export function resolveCommon(options: { binary?: string; maxPayloadBytes?: number; readyTimeoutMs?: number }): {
  binary: string;
  maxPayloadBytes: number;
  readyTimeoutMs: number;
} {
  // Debian installs it in /usr/sbin, which is not on every user's PATH.
  const binary = options.binary ?? (existsSync(DEBIAN_BINARY) ? DEBIAN_BINARY : 'nats-server');
  const maxPayloadBytes = options.maxPayloadBytes ?? 2 * 1024 * 1024;
  const readyTimeoutMs = options.readyTimeoutMs ?? 15_000;
  if (typeof binary !== 'string' || binary === '') throw new ConfigError('binary', binary, 'binary must be the path of a nats-server binary');
  if (!Number.isInteger(maxPayloadBytes) || maxPayloadBytes < 1024) throw new ConfigError('maxPayloadBytes', maxPayloadBytes, 'maxPayloadBytes must be an integer of at least 1024');
  if (typeof readyTimeoutMs !== 'number' || readyTimeoutMs <= 0) throw new ConfigError('readyTimeoutMs', readyTimeoutMs, 'readyTimeoutMs must be a positive number');
  return { binary, maxPayloadBytes, readyTimeoutMs };
}

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, LOOPBACK_HOST } from '../process/loopback.js';
import { ServerProcess } from '../process/ServerProcess.js';
import type { LocalPostgres } from './LocalPostgres.js';

/**
 * PgBouncer's pool modes: a server connection is a client's for its whole session, for one
 * transaction, or for one statement.
 */
export type PgBouncerPoolMode = 'session' | 'transaction' | 'statement';

/** Options of {@link LocalPgBouncer.start}. */
export interface LocalPgBouncerOptions {
  /** @defaultValue 'transaction' (the mode most deployments run, and the strictest for a client) */
  readonly poolMode?: PgBouncerPoolMode;
  /** The port to listen on. @defaultValue a free loopback port */
  readonly port?: number;
  /** The `pgbouncer` binary. @defaultValue `/usr/sbin/pgbouncer` (Debian's), else the `PATH` */
  readonly binary?: string;
  /**
   * Roles it lets in, with their passwords (its `auth_file`), besides the backend's superuser
   * `postgres`. Each must exist on the backend with the same password.
   */
  readonly users?: Readonly<Record<string, string>>;
  /** Server connections per database and user (`default_pool_size`). @defaultValue 20 */
  readonly poolSize?: number;
  /** More `[pgbouncer]` settings, e.g. `{ ignore_startup_parameters: 'extra_float_digits' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /** How long to wait for it to serve a query. @defaultValue 15000 */
  readonly readyTimeoutMs?: number;
}

const SUPERUSER = 'postgres';
const SUPERUSER_PASSWORD = 'postgres';

/**
 * A real PgBouncer (Debian's 1.18 here) in front of a {@link LocalPostgres}: every database of the
 * backend under the same name, SCRAM authentication of the roles in its `auth_file`, the pool mode
 * of your choice, on a free loopback port, TCP only. PgBouncer refuses to run as root: when this
 * process is root it switches to the backend's system user (`-u`). It is ready once a query
 * through it answers; on failure it is killed and its directory removed, and it is SIGKILLed when
 * this process exits, as a last resort (it runs on {@link ServerProcess}).
 *
 * @example
 * ```ts
 * const pg = await LocalPostgres.start();
 * const bouncer = await LocalPgBouncer.start(pg, { poolMode: 'transaction' });
 * try {
 *   const kv = await PostgresKV.connect({ url: bouncer.url }); // through PgBouncer
 *   await kv.set('k', 'v');
 *   await kv.close();
 * } finally {
 *   await bouncer.destroy();
 *   await pg.destroy();
 * }
 * ```
 */
export class LocalPgBouncer {
  /** The host it listens on: {@link LOOPBACK_HOST}. */
  readonly host = LOOPBACK_HOST;
  readonly port: number;
  readonly poolMode: PgBouncerPoolMode;
  /** The temp directory of its configuration. */
  readonly dir: string;
  readonly #backend: LocalPostgres;
  readonly #process: ServerProcess;
  readonly #argv: readonly string[];
  readonly #readyTimeoutMs: number;

  private constructor(backend: LocalPostgres, binary: string, port: number, dir: string, poolMode: PgBouncerPoolMode, argv: readonly string[], readyTimeoutMs: number) {
    this.#backend = backend;
    this.port = port;
    this.dir = dir;
    this.poolMode = poolMode;
    this.#argv = argv;
    this.#readyTimeoutMs = readyTimeoutMs;
    this.#process = new ServerProcess(binary, `pgbouncer (${poolMode} pooling) on port ${port}`);
  }

  /**
   * Writes its configuration and starts it in front of `backend` (which must be running); resolves
   * once a query through it answers. On failure it kills what it started, removes its directory
   * and rejects.
   */
  static async start(backend: LocalPostgres, options: LocalPgBouncerOptions = {}): Promise<LocalPgBouncer> {
    const binary = options.binary ?? findPgBouncer();
    const poolMode = options.poolMode ?? 'transaction';
    const port = options.port ?? (await freeLoopbackPort());
    const dir = await mkdtemp(join(tmpdir(), 'roster-pgbouncer-'));
    const owner = backend.owner;
    const config = join(dir, 'pgbouncer.ini');
    const argv = owner === undefined ? [config] : ['-u', userName(owner.uid), config];
    const bouncer = new LocalPgBouncer(backend, binary, port, dir, poolMode, argv, options.readyTimeoutMs ?? 15_000);
    try {
      const users = { ...options.users, [SUPERUSER]: SUPERUSER_PASSWORD };
      const settings: Record<string, string> = {
        listen_addr: LOOPBACK_HOST,
        listen_port: String(port),
        unix_socket_dir: '',
        auth_type: 'scram-sha-256',
        auth_file: join(dir, 'userlist.txt'),
        admin_users: SUPERUSER,
        pool_mode: poolMode,
        max_client_conn: '1000',
        default_pool_size: String(options.poolSize ?? 20),
        // A restarted backend is logged into again at once, not after the default 15 s.
        server_login_retry: '1',
        ...options.settings,
      };
      const ini = [
        '[databases]',
        `* = host=${backend.host} port=${backend.port}`,
        '[pgbouncer]',
        ...Object.entries(settings).map(([name, value]) => `${name} = ${value}`),
        '',
      ].join('\n');
      await writeFile(config, ini, { mode: 0o600 });
      await writeFile(settings.auth_file!, Object.entries(users).map(([user, password]) => `${quote(user)} ${quote(password)}\n`).join(''), { mode: 0o600 });
      if (owner) for (const path of [dir, config, settings.auth_file!]) await chown(path, owner.uid, owner.gid);
      await bouncer.start();
      return bouncer;
    } catch (error) {
      await bouncer.destroy();
      throw error;
    }
  }

  /** The superuser's URL through PgBouncer: `postgres://postgres:postgres@127.0.0.1:<port>/postgres`. */
  get url(): string {
    return this.urlFor(SUPERUSER, SUPERUSER_PASSWORD);
  }

  /** A URL through PgBouncer for `user` (with `password`) on `database`. */
  urlFor(user: string, password?: string, database = 'postgres'): string {
    const auth = password === undefined ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
    return `postgres://${auth}@${this.host}:${this.port}/${encodeURIComponent(database)}`;
  }

  /** Its pid while it runs. */
  get pid(): number | undefined {
    return this.#process.pid;
  }

  /** True while it runs. */
  get running(): boolean {
    return this.#process.running;
  }

  /** Starts it (again, on the same port) and resolves once a query through it answers. */
  async start(): Promise<void> {
    await this.#process.start(this.#argv, async () => (await this.sql('SELECT 1').catch(() => '')) === '1', this.#readyTimeoutMs);
  }

  /**
   * Stops it with SIGTERM (PgBouncer 1.18's immediate shutdown: every connection dropped; newer
   * releases wait for their clients, and are SIGKILLed after 5 s).
   */
  async stop(): Promise<void> {
    await this.#process.stop({ signal: 'SIGTERM' });
  }

  /** SIGKILLs it. */
  async kill(): Promise<void> {
    await this.#process.kill();
  }

  /** Runs SQL as the superuser through PgBouncer with `psql`; resolves to its unaligned output, trimmed. */
  sql(text: string, options: { database?: string; timeoutMs?: number } = {}): Promise<string> {
    return this.#psql(options.database ?? 'postgres', text, options.timeoutMs ?? 10_000);
  }

  /** Runs a command of PgBouncer's admin console (`SHOW POOLS`, `SHOW CONFIG`, …); resolves to its unaligned output. */
  admin(command: string): Promise<string> {
    return this.#psql('pgbouncer', command, 10_000);
  }

  /** Kills it and removes its directory. Idempotent. */
  async destroy(): Promise<void> {
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Calls {@link LocalPgBouncer.destroy}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.destroy();
  }

  #psql(database: string, text: string, timeoutMs: number): Promise<string> {
    const args = ['-h', this.host, '-p', String(this.port), '-U', SUPERUSER, '-d', database, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', text];
    return new Promise((resolve, reject) => {
      execFile(
        join(this.#backend.binDir, 'psql'),
        args,
        { timeout: timeoutMs, env: { ...process.env, PGPASSWORD: SUPERUSER_PASSWORD, PGCONNECT_TIMEOUT: '2', LC_ALL: 'C' } },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`psql through pgbouncer failed: ${error.message}\n${stderr}\n${this.#process.output}`));
          else resolve(stdout.trim());
        },
      );
    });
  }
}

/** Debian's `/usr/sbin/pgbouncer`, else the first on the `PATH`. */
function findPgBouncer(): string {
  for (const dir of ['/usr/sbin', '/usr/bin', ...(process.env.PATH ?? '').split(':')]) {
    if (dir !== '' && existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  }
  throw new Error("LocalPgBouncer: no pgbouncer found (install Debian's `pgbouncer`, or give `binary`)");
}

/** The name of the system user `uid`, from /etc/passwd (for `pgbouncer -u`). */
function userName(uid: number): string {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((entry) => entry.split(':'))
    .find((fields) => fields.length >= 4 && Number(fields[2]) === uid);
  if (line === undefined) throw new Error(`LocalPgBouncer: no system user with uid ${uid} to run pgbouncer as (it refuses to run as root)`);
  return line[0]!;
}

/** A double-quoted `auth_file` field. */
function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, LOOPBACK_HOST } from '../process/loopback.js';
import { waitFor } from '../process/waitFor.js';

/** Options of {@link LocalPostgres.start}. */
export interface LocalPostgresOptions {
  /**
   * The directory of `initdb`, `postgres` and `psql`. @defaultValue the newest
   * `/usr/lib/postgresql/<version>/bin` (Debian's layout), else the `PATH`
   */
  readonly binDir?: string;
  /** The port to listen on. @defaultValue a free loopback port */
  readonly port?: number;
  /**
   * The system user the server runs as when this process is root (PostgreSQL refuses to run as
   * root). @defaultValue `postgres` when that user exists, else `nobody`
   */
  readonly systemUser?: string;
  /** More server settings (`-c name=value`), e.g. `{ max_connections: '50' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /** How long to wait for the server to accept connections. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
  /**
   * Serve TLS too (`ssl = on`) with this certificate and key (PEM text); clients may still
   * connect without TLS.
   */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** How {@link LocalPostgres.stop} shuts the server down (PostgreSQL's shutdown modes). */
export type PostgresShutdownMode = 'smart' | 'fast' | 'immediate';

const SHUTDOWN_SIGNAL: Readonly<Record<PostgresShutdownMode, NodeJS.Signals>> = { smart: 'SIGTERM', fast: 'SIGINT', immediate: 'SIGQUIT' };
/** The superuser and its password (password authentication on TCP, as in production). */
const SUPERUSER = 'postgres';
const SUPERUSER_PASSWORD = 'postgres';

/** The postmasters running now (with their directories), SIGKILLed with their children when this process exits, as a last resort. */
const running = new Map<number, string>();
let exitHookInstalled = false;

function track(pid: number, dir: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const [postmaster, path] of running) {
        for (const pid of [postmaster, ...childrenOf(postmaster)]) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
        rmSync(path, { recursive: true, force: true });
      }
    });
  }
  running.set(pid, dir);
}

/**
 * A real PostgreSQL server for tests and the bench: `initdb` into a temp directory, then a
 * postmaster on a free loopback port (TCP only, password authentication, `fsync` off). When this
 * process is root it runs as the `postgres` user (or `nobody`), owning its directory.
 *
 * Faults: {@link LocalPostgres.stop} with a fast or immediate shutdown, {@link LocalPostgres.kill}
 * (SIGKILL of the postmaster and its backends), {@link LocalPostgres.pause} (SIGSTOP of them all),
 * {@link LocalPostgres.terminateBackends} (`pg_terminate_backend`), and {@link LocalPostgres.start}
 * again on the same port and data. {@link LocalPostgres.destroy} kills it and removes the directory;
 * whatever still runs when this process exits is SIGKILLed and its directory removed.
 *
 * @example
 * ```ts
 * const pg = await LocalPostgres.start();
 * try {
 *   const kv = await PostgresKV.connect({ url: pg.url });
 *   await pg.stop('immediate'); // kv's operations now fail with StoreUnavailableError
 *   await pg.start();
 * } finally {
 *   await pg.destroy();
 * }
 * ```
 */
export class LocalPostgres {
  /** The host the server listens on: {@link LOOPBACK_HOST}. */
  readonly host = LOOPBACK_HOST;
  readonly port: number;
  /** The temp directory of the data and the logs. */
  readonly dir: string;
  readonly #bin: string;
  readonly #owner: { uid: number; gid: number } | undefined;
  readonly #settings: Readonly<Record<string, string>>;
  readonly #readyTimeoutMs: number;
  readonly #tls: boolean;
  #child: ChildProcess | undefined;
  #output = '';

  private constructor(bin: string, port: number, dir: string, owner: { uid: number; gid: number } | undefined, options: LocalPostgresOptions) {
    this.#bin = bin;
    this.port = port;
    this.dir = dir;
    this.#owner = owner;
    this.#settings = options.settings ?? {};
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    this.#tls = options.tls !== undefined;
  }

  /**
   * Creates a cluster with `initdb` and starts it; resolves once it accepts connections. On failure
   * it kills what it started, removes the temp directory and rejects.
   */
  static async start(options: LocalPostgresOptions = {}): Promise<LocalPostgres> {
    const bin = options.binDir ?? findBinDir();
    const owner = process.getuid?.() === 0 ? systemUser(options.systemUser) : undefined;
    const dir = await mkdtemp(join(tmpdir(), 'roster-postgres-'));
    const port = options.port ?? (await freeLoopbackPort());
    const server = new LocalPostgres(bin, port, dir, owner, options);
    try {
      if (owner) await chown(dir, owner.uid, owner.gid);
      const pwfile = join(dir, 'pwfile');
      await writeFile(pwfile, `${SUPERUSER_PASSWORD}\n`);
      if (owner) await chown(pwfile, owner.uid, owner.gid);
      if (options.tls) {
        for (const [name, pem] of [['server.crt', options.tls.cert], ['server.key', options.tls.key]] as const) {
          await writeFile(join(dir, name), pem, { mode: 0o600 });
          if (owner) await chown(join(dir, name), owner.uid, owner.gid);
        }
      }
      await server.#run('initdb', ['-D', server.#data, '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth-host=scram-sha-256', '--auth-local=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], 60_000);
      await server.start();
      return server;
    } catch (error) {
      await server.destroy();
      throw error;
    }
  }

  /**
   * Starts a hot standby of this (running) server: `pg_basebackup -R` into a temp directory of its
   * own, then a postmaster on a free loopback port that streams from this one and serves reads
   * only. Destroy it as any LocalPostgres; on failure it is removed and the call rejects.
   */
  async startStandby(): Promise<LocalPostgres> {
    const dir = await mkdtemp(join(tmpdir(), 'roster-postgres-standby-'));
    const standby = new LocalPostgres(this.#bin, await freeLoopbackPort(), dir, this.#owner, { settings: this.#settings, readyTimeoutMs: this.#readyTimeoutMs });
    try {
      if (this.#owner) await chown(dir, this.#owner.uid, this.#owner.gid);
      const args = ['-h', this.host, '-p', String(this.port), '-U', SUPERUSER, '-D', standby.#data, '-R', '-X', 'stream', '--no-sync'];
      await standby.#exec('pg_basebackup', args, 60_000, { PGPASSWORD: SUPERUSER_PASSWORD });
      await standby.start();
      return standby;
    } catch (error) {
      await standby.destroy();
      throw error;
    }
  }

  /** The superuser's URL: `postgres://postgres:postgres@127.0.0.1:<port>/postgres`. */
  get url(): string {
    return this.urlFor(SUPERUSER, SUPERUSER_PASSWORD);
  }

  /** A URL of this server for `user` (with `password`) on `database`. */
  urlFor(user: string, password?: string, database = 'postgres'): string {
    const auth = password === undefined ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
    return `postgres://${auth}@${this.host}:${this.port}/${encodeURIComponent(database)}`;
  }

  /** The directory of its `initdb`, `postgres` and `psql`. */
  get binDir(): string {
    return this.#bin;
  }

  /** The system user it runs as (when this process is root), for servers placed in front of it. */
  get owner(): { readonly uid: number; readonly gid: number } | undefined {
    return this.#owner;
  }

  /** The postmaster's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** True while the postmaster runs. */
  get running(): boolean {
    return this.#child !== undefined;
  }

  /** Starts the server (again, on the same port and data) and resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.#child) return;
    const settings: Record<string, string> = {
      listen_addresses: this.host,
      port: String(this.port),
      unix_socket_directories: '',
      // Without fsync a commit is still written to the operating system before it is acknowledged
      // (synchronous_commit, PostgreSQL's default): an immediate shutdown, which kills the server
      // but not the machine, loses no acknowledged write, as the protocol assumes of its store.
      fsync: 'off',
      full_page_writes: 'off',
      shared_buffers: '32MB',
      max_connections: '200',
      ...(this.#tls && { ssl: 'on', ssl_cert_file: join(this.dir, 'server.crt'), ssl_key_file: join(this.dir, 'server.key') }),
      ...this.#settings,
    };
    const args = ['-D', this.#data, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
    const child = spawn(join(this.#bin, 'postgres'), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...this.#owner });
    this.#child = child;
    this.#output = '';
    const ended = new AbortController();
    const keep = (chunk: Buffer): void => void (this.#output = (this.#output + chunk.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('error', (error) => ended.abort(new Error(`cannot run ${join(this.#bin, 'postgres')}: ${error.message}`)));
    child.once('exit', (code, signal) => {
      if (child.pid !== undefined) running.delete(child.pid);
      if (this.#child === child) this.#child = undefined;
      ended.abort(new Error(`postgres on port ${this.port} exited with ${code ?? signal}:\n${this.#output}`));
    });
    if (child.pid !== undefined) track(child.pid, this.dir);
    try {
      await waitFor(async () => (await this.sql('SELECT 1', { timeoutMs: 2000 })) === '1', {
        what: () => `postgres on port ${this.port} to accept connections:\n${this.#output}`,
        timeoutMs: this.#readyTimeoutMs,
        everyMs: 100,
        signal: ended.signal,
      });
    } catch (error) {
      await this.kill();
      throw error;
    }
  }

  /**
   * Shuts the server down and resolves once the postmaster exited: `fast` (the default) ends the
   * sessions and checkpoints, `immediate` exits at once (crash recovery at the next start),
   * `smart` waits for the sessions to end.
   */
  async stop(mode: PostgresShutdownMode = 'fast'): Promise<void> {
    await this.#end(SHUTDOWN_SIGNAL[mode], false);
  }

  /** SIGKILLs the postmaster and every backend (its process group), paused or not. */
  async kill(): Promise<void> {
    await this.#end('SIGKILL', true);
  }

  /** SIGSTOPs the server and its backends: connections stay open, nothing answers. */
  pause(): void {
    this.#signalAll('SIGSTOP');
  }

  /** SIGCONTs a paused server. */
  resume(): void {
    this.#signalAll('SIGCONT');
  }

  /**
   * Terminates client backends with `pg_terminate_backend` (their connections drop, as when an
   * operator or a pooler kills them); only those of `applicationName` when given. Resolves to how
   * many were terminated.
   */
  async terminateBackends(applicationName?: string): Promise<number> {
    const filter = applicationName === undefined ? '' : ` AND application_name = ${literal(applicationName)}`;
    const out = await this.sql(
      `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'${filter}`,
    );
    return Number(out);
  }

  /**
   * Runs SQL as the superuser with `psql` and resolves to its unaligned output (rows on lines,
   * columns split by `|`), trimmed.
   */
  async sql(text: string, options: { database?: string; timeoutMs?: number } = {}): Promise<string> {
    const args = ['-h', this.host, '-p', String(this.port), '-U', SUPERUSER, '-d', options.database ?? 'postgres', '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', text];
    return (await this.#exec('psql', args, options.timeoutMs ?? 10_000, { PGPASSWORD: SUPERUSER_PASSWORD, PGCONNECT_TIMEOUT: '2' })).trim();
  }

  /** Kills the server and removes its directory. Idempotent. */
  async destroy(): Promise<void> {
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Calls {@link LocalPostgres.destroy}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.destroy();
  }

  get #data(): string {
    return join(this.dir, 'data');
  }

  /** Signals the postmaster and its children (each backend is a process group of its own). */
  #signalAll(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    for (const target of [pid, ...childrenOf(pid)]) {
      try {
        process.kill(target, signal);
      } catch {
        // Already gone.
      }
    }
  }

  async #end(signal: NodeJS.Signals, all: boolean): Promise<void> {
    const child = this.#child;
    if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
      this.#child = undefined;
      return;
    }
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const children = childrenOf(child.pid);
    this.#signalAll('SIGCONT');
    if (all) this.#signalAll(signal);
    else child.kill(signal);
    await gone;
    this.#child = undefined;
    // Backends of a killed postmaster may outlive it for a moment: wait for every one.
    await waitFor(() => children.every((pid) => !alive(pid)), { what: `the processes of postgres on port ${this.port} to exit`, timeoutMs: 10_000, everyMs: 20 });
  }

  #run(tool: string, args: readonly string[], timeoutMs: number): Promise<string> {
    return this.#exec(tool, args, timeoutMs, {});
  }

  #exec(tool: string, args: readonly string[], timeoutMs: number, env: Record<string, string>): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        join(this.#bin, tool),
        args,
        { timeout: timeoutMs, env: { ...process.env, ...env, LC_ALL: 'C' }, cwd: this.dir, ...this.#owner },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`${tool} failed: ${error.message}\n${stderr}`));
          else resolve(stdout);
        },
      );
    });
  }
}

/** True while the process `pid` runs (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The pids whose parent is `pid`, from /proc (the server's backends and auxiliary processes). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The newest Debian `/usr/lib/postgresql/<version>/bin`, else the directory of `postgres` on the PATH. */
function findBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    if (versions[0] !== undefined) return join(root, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, 'postgres')) && existsSync(join(dir, 'initdb'))) return dir;
  }
  throw new Error('LocalPostgres: no PostgreSQL server found (install Debian\'s `postgresql`, or give `binDir`)');
}

/** The uid and gid of `name` (default `postgres`, else `nobody`) from /etc/passwd. */
function systemUser(name: string | undefined): { uid: number; gid: number } {
  const users = new Map(
    readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .filter((fields) => fields.length >= 4)
      .map((fields) => [fields[0]!, { uid: Number(fields[2]), gid: Number(fields[3]) }] as const),
  );
  const chosen = name ?? (users.has('postgres') ? 'postgres' : 'nobody');
  const user = users.get(chosen);
  if (user === undefined) throw new Error(`LocalPostgres: no system user ${JSON.stringify(chosen)} to run postgres as (it refuses to run as root)`);
  return user;
}

function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, LOOPBACK_HOST } from '../process/loopback.js';
import { ServerProcess } from '../process/ServerProcess.js';

/** Options of {@link LocalMariaDB.start}. */
export interface LocalMariaDBOptions {
  /** The `mariadbd` binary. @defaultValue `/usr/sbin/mariadbd` (Debian's), else `mariadbd` on the PATH */
  readonly binary?: string;
  /** The port to listen on. @defaultValue a free loopback port */
  readonly port?: number;
  /**
   * The system user the server runs as when this process is root (MariaDB refuses to run as root
   * unless told to). @defaultValue `mysql` when that user exists, else `nobody`
   */
  readonly systemUser?: string;
  /** More server options (`--name=value`), e.g. `{ 'max-connections': '20' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /** How long to wait for the server to accept connections. @defaultValue 30000 */
  readonly readyTimeoutMs?: number;
  /** Serve TLS too, with this certificate and key (PEM text); clients may still connect without TLS. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** The application user and its database, created at every start (an ordinary user: no global privileges). */
const APP_USER = 'roster';
const APP_PASSWORD = 'roster';
const APP_DATABASE = 'roster';

/** Directories still in use, removed when this process exits (their servers are SIGKILLed by ServerProcess). */
const dirs = new Set<string>();
let exitHookInstalled = false;

function trackDir(dir: string): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const path of dirs) rmSync(path, { recursive: true, force: true });
    });
  }
  dirs.add(dir);
}

/**
 * A real MariaDB server for tests and the bench: `mariadb-install-db` into a temp directory, then
 * `mariadbd` on a free loopback port (TCP for clients, a Unix socket in the directory for its own
 * administration as the database's `root`), binary log and durability off. When this process is
 * root the server runs as the `mysql` user (or `nobody`), owning its directory.
 *
 * At every start it (re)creates the user `roster` (password `roster`), with every privilege on the
 * database `roster` and none global, so that `read_only` and `max_connections` apply to it as to
 * an application: {@link LocalMariaDB.url}.
 *
 * Faults: {@link LocalMariaDB.stop} (a clean shutdown), {@link LocalMariaDB.kill} (SIGKILL),
 * {@link LocalMariaDB.pause} (SIGSTOP), {@link LocalMariaDB.killConnections} (`KILL`),
 * {@link LocalMariaDB.setReadOnly}, and {@link LocalMariaDB.start} again on the same port and data.
 * {@link LocalMariaDB.destroy} kills it and removes the directory; whatever still runs when this
 * process exits is SIGKILLed and its directory removed.
 *
 * @example
 * ```ts
 * const db = await LocalMariaDB.start();
 * try {
 *   const kv = await MySQLKV.connect({ url: db.url });
 *   await db.kill(); // kv's operations now fail with StoreUnavailableError
 *   await db.start();
 * } finally {
 *   await db.destroy();
 * }
 * ```
 */
export class LocalMariaDB {
  /** The host the server listens on: {@link LOOPBACK_HOST}. */
  readonly host = LOOPBACK_HOST;
  readonly port: number;
  /** The temp directory of the data, the socket and the init file. */
  readonly dir: string;
  readonly #server: ServerProcess;
  readonly #user: string | undefined;
  readonly #options: LocalMariaDBOptions;

  private constructor(binary: string, port: number, dir: string, user: string | undefined, options: LocalMariaDBOptions) {
    this.port = port;
    this.dir = dir;
    this.#user = user;
    this.#options = options;
    this.#server = new ServerProcess(binary, `mariadbd on port ${port}`);
  }

  /**
   * Creates the data directory with `mariadb-install-db` and starts the server; resolves once it
   * accepts connections. On failure it kills what it started, removes the temp directory and rejects.
   */
  static async start(options: LocalMariaDBOptions = {}): Promise<LocalMariaDB> {
    const binary = options.binary ?? findMariadbd();
    const user = process.getuid?.() === 0 ? systemUser(options.systemUser) : undefined;
    const dir = await mkdtemp(join(tmpdir(), 'roster-mariadb-'));
    trackDir(dir);
    const port = options.port ?? (await freeLoopbackPort());
    const server = new LocalMariaDB(binary, port, dir, user, options);
    try {
      if (user !== undefined) {
        const { uid, gid } = userIds(user);
        await chown(dir, uid, gid);
      }
      const sql = [
        `CREATE USER IF NOT EXISTS '${APP_USER}'@'%' IDENTIFIED BY '${APP_PASSWORD}';`,
        `CREATE DATABASE IF NOT EXISTS ${APP_DATABASE};`,
        `GRANT ALL PRIVILEGES ON ${APP_DATABASE}.* TO '${APP_USER}'@'%';`,
      ].join('\n');
      await writeFile(join(dir, 'init.sql'), `${sql}\n`);
      if (options.tls) {
        for (const [name, pem] of [['server.crt', options.tls.cert], ['server.key', options.tls.key]] as const) {
          await writeFile(join(dir, name), pem);
          await chmod(join(dir, name), 0o644);
        }
      }
      await exec(
        'mariadb-install-db',
        ['--no-defaults', ...(user ? [`--user=${user}`] : []), `--datadir=${server.#data}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--skip-name-resolve'],
        60_000,
        dir,
      );
      await server.start();
      return server;
    } catch (error) {
      await server.destroy();
      throw error;
    }
  }

  /** The application user's URL: `mysql://roster:roster@127.0.0.1:<port>/roster`. */
  get url(): string {
    return this.urlFor(APP_USER, APP_PASSWORD);
  }

  /** A URL of this server for `user` (with `password`) on `database` (`roster` by default). */
  urlFor(user: string, password?: string, database = APP_DATABASE): string {
    const auth = password === undefined ? encodeURIComponent(user) : `${encodeURIComponent(user)}:${encodeURIComponent(password)}`;
    return `mysql://${auth}@${this.host}:${this.port}/${encodeURIComponent(database)}`;
  }

  /** The server's pid while it runs. */
  get pid(): number | undefined {
    return this.#server.pid;
  }

  /** True while the server runs (also while it is paused). */
  get running(): boolean {
    return this.#server.running;
  }

  /** Starts the server (again, on the same port and data) and resolves once it accepts connections. */
  async start(): Promise<void> {
    const settings: Record<string, string> = {
      datadir: this.#data,
      port: String(this.port),
      'bind-address': this.host,
      socket: this.#socket,
      'pid-file': join(this.dir, 'mariadbd.pid'),
      'init-file': join(this.dir, 'init.sql'),
      'skip-name-resolve': '',
      'skip-log-bin': '',
      'innodb-buffer-pool-size': '16M',
      'innodb-log-file-size': '8M',
      'innodb-flush-log-at-trx-commit': '0',
      'max-connections': '200',
      ...(this.#user !== undefined && { user: this.#user }),
      ...(this.#options.tls && { 'ssl-cert': join(this.dir, 'server.crt'), 'ssl-key': join(this.dir, 'server.key') }),
      ...this.#options.settings,
    };
    const argv = ['--no-defaults', ...Object.entries(settings).map(([name, value]) => (value === '' ? `--${name}` : `--${name}=${value}`))];
    await this.#server.start(argv, async () => (await this.sql('SELECT 1', { timeoutMs: 2000 })) === '1', this.#options.readyTimeoutMs ?? 30_000);
  }

  /** Shuts the server down cleanly (SIGTERM: sessions end, InnoDB flushes) and resolves once it exited. */
  async stop(): Promise<void> {
    await this.#server.stop({ signal: 'SIGTERM', graceMs: 20_000 });
  }

  /** SIGKILLs the server, paused or not (crash recovery at the next start). */
  async kill(): Promise<void> {
    await this.#server.kill();
  }

  /** SIGSTOPs the server: connections stay open, nothing answers, new connections hang in the handshake. */
  pause(): void {
    this.#server.signal('SIGSTOP');
  }

  /** SIGCONTs a paused server. */
  resume(): void {
    this.#server.signal('SIGCONT');
  }

  /**
   * `KILL`s every client connection (of `user` only, when given) but this tool's own, as an
   * operator or a proxy would; resolves to how many were killed.
   */
  async killConnections(user?: string): Promise<number> {
    const filter = user === undefined ? `user <> 'system user'` : `user = '${user.replace(/'/g, "''")}'`;
    const ids = (await this.sql(`SELECT id FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND command <> 'Daemon' AND ${filter}`))
      .split('\n')
      .filter((id) => /^\d+$/.test(id));
    if (ids.length > 0) await this.sql(ids.map((id) => `KILL ${id};`).join(' ')).catch(() => undefined); // a connection may end meanwhile
    return ids.length;
  }

  /** Switches `read_only` on or off (`SET GLOBAL read_only`): writes of ordinary users then fail with error 1290. */
  async setReadOnly(on: boolean): Promise<void> {
    await this.sql(`SET GLOBAL read_only = ${on ? 'ON' : 'OFF'}`);
  }

  /**
   * Runs SQL as the database's `root` (over the server's Unix socket) with the `mariadb` client and
   * resolves to its output (rows on lines, columns split by tabs, no headers), trimmed.
   */
  async sql(text: string, options: { database?: string; timeoutMs?: number } = {}): Promise<string> {
    const args = ['--no-defaults', `--socket=${this.#socket}`, '-uroot', '-N', '-B', '--connect-timeout=2', ...(options.database ? [options.database] : []), '-e', text];
    return (await exec('mariadb', args, options.timeoutMs ?? 10_000, this.dir)).trim();
  }

  /** Kills the server and removes its directory. Idempotent. */
  async destroy(): Promise<void> {
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
    dirs.delete(this.dir);
  }

  /** Calls {@link LocalMariaDB.destroy}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.destroy();
  }

  get #data(): string {
    return join(this.dir, 'data');
  }

  get #socket(): string {
    return join(this.dir, 'mariadbd.sock');
  }
}

function exec(tool: string, args: readonly string[], timeoutMs: number, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { timeout: timeoutMs, cwd, env: { ...process.env, LC_ALL: 'C' } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${tool} failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** Debian's `/usr/sbin/mariadbd`, else `mariadbd` (or `mysqld`) on the PATH. */
function findMariadbd(): string {
  for (const dir of ['/usr/sbin', ...(process.env.PATH ?? '').split(':')]) {
    for (const name of ['mariadbd', 'mysqld']) if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  throw new Error('LocalMariaDB: no MariaDB server found (install Debian\'s `mariadb-server`, or give `binary`)');
}

/** `name` (default `mysql`, else `nobody`), checked in /etc/passwd. */
function systemUser(name: string | undefined): string {
  const users = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':')[0]);
  const chosen = name ?? (users.includes('mysql') ? 'mysql' : 'nobody');
  if (!users.includes(chosen)) throw new Error(`LocalMariaDB: no system user ${JSON.stringify(chosen)} to run mariadbd as (it refuses to run as root)`);
  return chosen;
}

function userIds(name: string): { uid: number; gid: number } {
  const fields = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((f) => f[0] === name);
  return { uid: Number(fields?.[2]), gid: Number(fields?.[3]) };
}

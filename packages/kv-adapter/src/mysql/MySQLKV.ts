import type { ConnectionOptions } from 'node:tls';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import { abortReason, type Clock } from '../clock/Clock.js';
import { StoreUnavailableError, ValueTooLargeError } from '../errors.js';
import type { CompareAndSetOptions, CompareAndSetResult, KV, KVCapabilities, KVLimits, KVOperationOptions, SetOptions } from '../KV.js';
import type { Logger } from '../logger.js';
import { ConnectBackOff } from '../backend/ConnectBackOff.js';
import { DatabaseOperations, endPoolWithin } from '../backend/DatabaseOperations.js';
import { loadDriver } from '../backend/loadDriver.js';
import { checkStampedWrite, ttlArgument } from '../backend/stampedWrite.js';
import { checkRange, checkSize, checkValue } from '../validate.js';
import { gatedStream } from './gatedStream.js';
import { connectionSurvives, mapMySQLError, NO_SUCH_TABLE, serverErrno } from './mapMySQLError.js';
import { resolveMySQLSettings, type MySQLSettings } from './resolveMySQLSettings.js';
import { statements, type MySQLFlavour, type Statements } from './statements.js';

/** Options of {@link MySQLKV.connect}. */
export interface MySQLKVOptions extends KVLimits {
  /**
   * Where the database is: `mysql://USER[:PASS]@HOST[:PORT]/DB[?ssl=…&table=…]` (also
   * `mariadb://`). `ssl` is `disable` (the default), `require`, `verify-ca` or `verify-full`.
   */
  readonly url: string;
  /** Password; overrides the URL's. */
  readonly password?: string;
  /**
   * The table of the keys, created when missing (and again if it disappears). A lower-case SQL
   * identifier, optionally `database.table`. @defaultValue the URL's `?table=`, else `"roster_kv"`
   */
  readonly table?: string;
  /**
   * TLS: `true` or Node.js TLS options (CA, client certificate and key, server name) to use TLS
   * with the certificate verified, `false` not to; overrides the URL's `ssl` (its options apply on
   * top of `require` and `verify-ca`). @defaultValue what `ssl` says
   */
  readonly tls?: boolean | ConnectionOptions;
  /** Most connections the pool opens. @defaultValue 4 */
  readonly poolSize?: number;
  /** How long {@link MySQLKV.connect} waits for the database (and the table). @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one operation may take: each statement's server-side bound (MariaDB's
   * `max_statement_time` and lock wait, MySQL's `MAX_EXECUTION_TIME` on reads), mysql2's query
   * timeout, and the client's own deadline. @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /** Receives connection events (lost, restored). @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock of the deadlines and of the connection back-off. @defaultValue the real clock */
  readonly clock?: Clock;
}

/** Options of the connection attempt of {@link MySQLKV.connect}. */
export interface MySQLKVConnectOptions {
  /** Abandons the connection attempt; `connect` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What one `query` call returns: rows, an OK packet, or (several statements) one of them per statement. */
type Result = RowDataPacket[] | ResultSetHeader | (RowDataPacket[] | ResultSetHeader)[];
/** Runs SQL within an operation's deadline. */
type Query = (sql: string, values: unknown[]) => Promise<Result>;
/** A row of `get`, `take`, `exchange` and `current`. */
type ValueRow = { value: Buffer | string | null; size: number | string | null; live?: number | string | null };

/** Errors of a `CREATE TABLE IF NOT EXISTS` that lost the race to another creator: 1050 table exists. */
const CREATED_BY_ANOTHER = new Set([1050]);

/**
 * A {@link KV} on MySQL 8 or MariaDB, through mysql2 (an optional peer dependency: install it to
 * use this backend). mysql2 speaks to both servers, has a promise pool, and is by far the most
 * used MySQL client of Node.js.
 *
 * **One table**, `key VARBINARY(3072) PRIMARY KEY, value LONGBLOB NOT NULL, expires_at BIGINT`
 * (InnoDB), created when missing, and again when an operation finds it gone. Values are binary, so
 * lengths and ranges are in UTF-8 bytes as on Redis; an expired row reads as absent and is deleted
 * by a sweep every minute.
 *
 * **Atomic operations**: `get` a SELECT, `set` an upsert, `delete` a DELETE of a live row, `append`
 * an upsert that refuses growth past `maxValueBytes` and passes the new length back through
 * `LAST_INSERT_ID(expr)`, `getRange` a SUBSTRING, `take` and `exchange` a transaction (a locking
 * read, then the DELETE or UPDATE) sent in one round trip, `compareAndSet` a conditional
 * `UPDATE … WHERE value = ?` (or its prefix) judged by the rows it matched (an absent key: an
 * `INSERT IGNORE`, then an UPDATE of an expired row), which stamps one reading of the server's
 * clock into the value in the same statement. A compare that fails reads the current value in a
 * second statement.
 *
 * **The store's clock** is the server's `UTC_TIMESTAMP(6)`, read once per statement, in ms since
 * the epoch (microsecond precision, truncated to the ms): `time` reads it, `compareAndSet` stamps
 * and returns it, and TTLs (rounded up to the ms) are counted on it.
 *
 * **Bounded, and no storm.** A pool of `poolSize` connections. Every statement is bounded on the
 * server and on the client (`commandTimeoutMs`); so is the wait for a pooled connection. While the
 * server does not answer (an operation failed as unavailable or timed out, or a connection did not
 * open), new connections are spaced by the shared `ConnectBackOff` (the first at once, then 100 ms
 * doubling to 500 ms, jittered, until an operation is answered in time); an operation that would
 * need one sooner fails at once as unavailable. No session state (no `GET_LOCK`, no `SET SESSION`, no
 * prepared statements): it works behind a proxy that shares server connections.
 *
 * **Errors.** A server down, restarting, read-only, out of connections, a killed connection, a
 * deadlock → `StoreUnavailableError` (a lock wait or statement timeout with `timedOut`); wrong
 * credentials, a missing privilege, an unknown database, a TLS refusal → `StoreAccessError`; values
 * over `maxValueBytes` → `ValueTooLargeError`; after {@link MySQLKV.close} → `KVClosedError`.
 *
 * @example
 * ```ts
 * import { MySQLKV } from '@roster/kv-adapter/mysql';
 *
 * const kv = await MySQLKV.connect({ url: 'mysql://roster:s3cret@127.0.0.1:3306/app' });
 * try {
 *   await kv.append('roster/app/prod/join 0', ' node7');
 *   console.log(await kv.take('roster/app/prod/join 0')); // ' node7'
 * } finally {
 *   await kv.close();
 * }
 * ```
 */
export class MySQLKV implements KV {
  readonly name = 'MySQLKV';
  readonly capabilities: KVCapabilities = Object.freeze({ compareAndSet: true, time: true, comparePrefix: true });
  /** The table the keys are kept in. */
  readonly table: string;
  readonly #pool: Pool;
  readonly #settings: MySQLSettings;
  /** Spaces out new connections while the server does not answer (see {@link gatedStream}). */
  readonly #backOff: ConnectBackOff;
  #sql: Statements | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  #creating: Promise<void> | undefined;
  readonly #operations: DatabaseOperations;

  private constructor(settings: MySQLSettings, pool: Pool, backOff: ConnectBackOff) {
    this.#settings = settings;
    this.#pool = pool;
    this.#backOff = backOff;
    this.table = settings.table;
    this.#operations = new DatabaseOperations({
      ...settings,
      backend: this.name,
      store: 'mysql',
      backOff,
      poolSize: settings.pool.connectionLimit ?? 1,
      closed: () => this.#closed,
      tableMissing: (error) => serverErrno(error) === NO_SUCH_TABLE,
      ensureTable: () => this.#ensureTable(this.#sql!),
      mapError: mapMySQLError,
    });
    // A connection that breaks while idle (a killed session, a restart) emits 'error': mysql2's
    // pool drops it on the first one only. Each is listened to, or a second would crash the process.
    const lost = (error: Error): void => settings.logger.debug({ store: settings.target, error: error.message }, 'mysql: connection lost');
    pool.pool.on('connection', (connection) => connection.on('error', lost));
  }

  /**
   * Connects to the database, learns whether it is MariaDB or MySQL, creates the table when
   * missing, and resolves once all are done. A database that refuses connections is tried again
   * every 100 ms (new connections spaced by the back-off) until `connectTimeoutMs`.
   *
   * @throws {@link ConfigError} for bad options (a bad URL: field `store`).
   * @throws {@link MissingDriverError} when `mysql2` is not installed.
   * @throws {@link StoreAccessError} at once for wrong credentials, an unknown database, a missing
   *   privilege (to create the table) or a TLS refusal.
   * @throws {@link StoreUnavailableError} when the database is not ready within `connectTimeoutMs`.
   */
  static async connect(options: MySQLKVOptions, { signal }: MySQLKVConnectOptions = {}): Promise<MySQLKV> {
    const settings = resolveMySQLSettings(options);
    const mysql = await loadDriver('mysql2', 'MySQLKV', () => import('mysql2/promise'));
    const createPool = (mysql as unknown as { createPool?: typeof mysql.default.createPool }).createPool ?? mysql.default.createPool;
    const backOff = new ConnectBackOff({ clock: settings.clock });
    const kv = new MySQLKV(settings, createPool({ ...settings.pool, stream: gatedStream(backOff) }), backOff);
    try {
      await kv.#operations.waitUntilReady(() => kv.#prepare(), signal, (error) => (error instanceof Error ? error.message : String(error)));
      // The server answered: the operations that follow may open the connections they need.
      kv.#backOff.succeeded();
    } catch (error) {
      await kv.#destroy();
      throw error;
    }
    kv.#operations.scheduleSweep(() => kv.#query(kv.#sql!.sweep, []));
    return kv;
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('get', key, options, async (q, sql) => this.#read(key, rowsOf(await q(sql.get, [this.#max, bin(key)]))[0]));
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#op('set', key, options, async (q, sql) => {
      checkValue(key, value, this.#settings.limits);
      await q(sql.set, [bin(key), bin(value), ttlArgument(options?.ttlMs)]);
    });
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#op('delete', key, options, async (q, sql) => okOf(await q(sql.delete, [bin(key)])).affectedRows > 0);
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#op('append', key, options, async (q, sql) => {
      checkValue(key, value, this.#settings.limits);
      const bytes = bin(value);
      // insertId: 0 when the row was inserted, else its new length + 1, whether or not it was refused.
      const { insertId } = okOf(await q(sql.append, [bin(key), bytes, this.#max]));
      if (insertId === 0) return bytes.length;
      const size = Number(insertId) - 1;
      if (size > this.#max) throw new ValueTooLargeError(key, size, this.#max);
      return size;
    });
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    // A value over the limit is taken (deleted) all the same, then reported as too large.
    return this.#op('take', key, options, async (q, sql) => {
      const results = (await q(sql.take, [this.#max, bin(key), bin(key)])) as RowDataPacket[][];
      const row = results[1]?.[0] as ValueRow | undefined;
      return row !== undefined && Number(row.live) === 1 ? this.#read(key, row) : null;
    });
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#op('getRange', key, options, async (q, sql) => {
      checkRange(start, end);
      const row = rowsOf(await q(sql.getRange, [start, start, start, end, end, end, bin(key)]))[0] as { value: Buffer | string } | undefined;
      if (row === undefined) return '';
      const range = text(row.value);
      checkSize(key, range, this.#settings.limits);
      return range;
    });
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('exchange', key, options, async (q, sql) => {
      checkValue(key, value, this.#settings.limits);
      // The placeholder row makes the locked read find a row; a take or delete that removes it
      // before the lock leaves the UPDATE nothing to change: then it is tried again.
      for (;;) {
        const results = (await q(sql.exchange, [bin(key), this.#max, bin(key), bin(value), bin(key)])) as (RowDataPacket[] | ResultSetHeader)[];
        const row = (results[2] as RowDataPacket[] | undefined)?.[0] as ValueRow | undefined;
        if (row === undefined || (results[3] as ResultSetHeader).affectedRows === 0) continue;
        return Number(row.live) === 1 ? this.#read(key, row) : null;
      }
    });
  }

  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#op('compareAndSet', key, options, async (q, sql) => {
      const { parts, ttl } = checkStampedWrite(key, expected, value, options, this.#settings.limits);
      const written = parts.map(bin);
      // Swapped: the statement's clock reading comes back as its insert id, and is the stamp.
      const swapped = (ok: ResultSetHeader): CompareAndSetResult => {
        const time = Number(ok.insertId);
        return { swapped: true, current: parts.join(String(time)), time };
      };
      for (;;) {
        if (expected === null) {
          const inserted = okOf(await q(sql.casInsert(parts.length), [bin(key), ...written, ttl]));
          if (inserted.affectedRows > 0) return swapped(inserted);
          const replaced = okOf(await q(sql.casExpired(parts.length), [...written, ttl, bin(key)]));
          if (replaced.affectedRows > 0) return swapped(replaced);
        } else {
          const match = options?.prefix ? [bin(expected), bin(expected)] : [bin(expected)];
          const statement = options?.prefix ? sql.casPrefix(parts.length) : sql.casEqual(parts.length);
          const updated = okOf(await q(statement, [...written, ttl, bin(key), ...match]));
          if (updated.affectedRows > 0) return swapped(updated);
        }
        const row = rowsOf(await q(sql.current, [this.#max, bin(key)]))[0] as (ValueRow & { ms: number | string }) | undefined;
        const time = Number(row?.ms);
        const current = row === undefined || row.size === null ? null : this.#read(key, row);
        // Expected absent but the key was live a moment ago and gone now: compare again.
        if (expected === null && current === null) continue;
        return { swapped: false, current, time };
      }
    });
  }

  time(options?: KVOperationOptions): Promise<number> {
    return this.#op('time', undefined, options, async (q, sql) => Number((rowsOf(await q(sql.time, []))[0] as { ms: number | string }).ms));
  }

  /**
   * Closes the pool: operations still in flight settle (each within `commandTimeoutMs`), then the
   * connections end; later operations reject with `KVClosedError`. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#destroy();
    return this.#closing;
  }

  /** Calls {@link MySQLKV.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  get #max(): number {
    return this.#settings.limits.maxValueBytes;
  }

  async #destroy(): Promise<void> {
    this.#closed = true;
    this.#operations.stopSweeps();
    const { clock, commandTimeoutMs } = this.#settings;
    await endPoolWithin(clock, commandTimeoutMs * 2, () => this.#pool.end());
  }

  /**
   * A pooled connection. One that did not open counts as a failure for the back-off (a server
   * that refuses this client for good answered: it is not paced, the error says so at once); one
   * that opened is not an answer yet.
   */
  async #connection(): Promise<PoolConnection> {
    try {
      return await this.#pool.getConnection();
    } catch (error) {
      if (StoreUnavailableError.is(mapMySQLError(error, { backend: this.name, operation: 'connect', closed: this.#closed }))) this.#backOff.failed();
      throw error;
    }
  }

  /**
   * Runs SQL on a pooled connection. A connection obtained after `signal` aborted (the caller gave
   * up) is handed back unused, so that an abandoned write is never sent late. A connection that
   * failed (a broken socket, mysql2's timeout, a killed session) is destroyed; one whose statement
   * failed on the server is rolled back (a transaction may be open) and handed back.
   */
  async #query(sql: string, values: unknown[], signal?: AbortSignal): Promise<Result> {
    const connection = await this.#connection();
    if (signal?.aborted) {
      connection.release();
      throw abortReason(signal);
    }
    try {
      const [result] = await connection.query({ sql, values, timeout: this.#settings.queryTimeoutMs });
      connection.release();
      return result as Result;
    } catch (error) {
      if (!connectionSurvives(error)) connection.destroy();
      else if (!sql.includes('START TRANSACTION')) connection.release();
      else connection.query('ROLLBACK').then(() => connection.release(), () => connection.destroy());
      throw error;
    }
  }

  /** A row of `get`, `take`, `exchange` or `current` as a string, or a {@link ValueTooLargeError}. */
  #read(key: string, row: ValueRow | RowDataPacket | undefined): string | null {
    if (row === undefined) return null;
    const { value, size } = row as ValueRow;
    if (value === null || Number(size) > this.#max) throw new ValueTooLargeError(key, Number(size), this.#max);
    return text(value);
  }

  /** Creates the table unless it exists; concurrent creators (here or in other processes) all succeed. */
  #ensureTable(sql: Statements): Promise<void> {
    this.#creating ??= this.#query(sql.tableExists, [])
      .then((result) => (Number((rowsOf(result)[0] as { n: number | string } | undefined)?.n) > 0 ? undefined : this.#query(sql.createTable, [])))
      .then(
        () => undefined,
        (error: unknown) => {
          if (CREATED_BY_ANOTHER.has(serverErrno(error) ?? 0)) return;
          throw error;
        },
      )
      .finally(() => (this.#creating = undefined));
    return this.#creating;
  }

  /** Learns the server's flavour (MariaDB or MySQL: the timeout syntax), then ensures the table. */
  async #prepare(): Promise<void> {
    if (this.#sql === undefined) {
      const version = String((rowsOf(await this.#query('SELECT VERSION() AS v', []))[0] as { v: unknown } | undefined)?.v ?? '');
      const flavour: MySQLFlavour = /mariadb/i.test(version) ? 'mariadb' : 'mysql';
      this.#sql = statements(this.table, flavour, this.#settings.commandTimeoutMs);
      this.#settings.logger.debug({ store: this.#settings.target, version, flavour }, 'mysql: connected');
    }
    await this.#ensureTable(this.#sql);
  }

  #op<T>(operation: string, key: string | undefined, options: KVOperationOptions | undefined, run: (query: Query, sql: Statements) => Promise<T>): Promise<T> {
    const sql = this.#sql!;
    return this.#operations.run(operation, key, options, (deadline) => run((text, values) => this.#query(text, values, deadline), sql));
  }
}

/** A string as the bytes mysql2 sends (a hex literal): exact UTF-8 whatever the connection's charset. */
function bin(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

/** A binary column as text (mysql2 gives a Buffer; a string when the server typed it as text). */
function text(value: Buffer | string): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function rowsOf(result: Result): RowDataPacket[] {
  return result as RowDataPacket[];
}

function okOf(result: Result): ResultSetHeader {
  return result as ResultSetHeader;
}

import type { ConnectionOptions } from 'node:tls';
import type { Client, Pool, QueryResult } from 'pg';
import { abortReason, type Clock } from '../clock/Clock.js';
import { ValueTooLargeError } from '../errors.js';
import type { CompareAndSetOptions, CompareAndSetResult, KV, KVCapabilities, KVLimits, KVOperationOptions, SetOptions } from '../KV.js';
import type { Logger } from '../logger.js';
import { loadDriver } from '../backend/loadDriver.js';
import { ConnectBackOff } from '../backend/ConnectBackOff.js';
import { DatabaseOperations, endPoolWithin } from '../backend/DatabaseOperations.js';
import { checkStampedWrite, ttlArgument } from '../backend/stampedWrite.js';
import { gatedClient } from './gatedClient.js';
import { checkRange, checkSize, checkValue } from '../validate.js';
import { mapPostgresError, sqlState } from './mapPostgresError.js';
import { resolvePostgresSettings, type PostgresSettings } from './resolvePostgresSettings.js';
import { render, statements, type Parameter, type Statement, type Statements } from './statements.js';

/** Options of {@link PostgresKV.connect}. */
export interface PostgresKVOptions extends KVLimits {
  /**
   * Where the database is: `postgres://USER[:PASS]@HOST[:PORT]/DB[?sslmode=…&table=…&application_name=…]`
   * (also `postgresql://`). `sslmode` is `disable` (the default), `require`, `verify-ca` or `verify-full`.
   */
  readonly url: string;
  /** Password; overrides the URL's. */
  readonly password?: string;
  /**
   * The table of the keys, created when missing (and again if it disappears). A lower-case SQL
   * identifier, optionally `schema.table`. @defaultValue the URL's `?table=`, else `"roster_kv"`
   */
  readonly table?: string;
  /**
   * TLS: `true` or Node.js TLS options (CA, client certificate and key, server name) to use TLS
   * with the certificate verified, `false` not to; overrides the URL's `sslmode` (its options apply
   * on top of `require` and `verify-ca`). @defaultValue what `sslmode` says
   */
  readonly tls?: boolean | ConnectionOptions;
  /** Most connections the pool opens. @defaultValue 8 */
  readonly poolSize?: number;
  /** How long {@link PostgresKV.connect} waits for the database (and the table). @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one operation may take: the server's `statement_timeout` and `lock_timeout` (set with
   * `SET LOCAL` in the operation's own transaction), the wait for a pooled connection, and the
   * client's own deadline. @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /** Receives connection events (lost, restored). @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock of the deadlines. @defaultValue the real clock */
  readonly clock?: Clock;
}

/** Options of the connection attempt of {@link PostgresKV.connect}. */
export interface PostgresKVConnectOptions {
  /** Abandons the connection attempt; `connect` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Runs one statement within an operation's deadline. */
type Query = (statement: Statement, values: Parameter[]) => Promise<QueryResult>;

/** SQLSTATEs of a `CREATE TABLE IF NOT EXISTS` that lost the race to another creator. */
const CREATED_BY_ANOTHER = new Set(['23505', '42P07', '42710']);
/** SQLSTATE of a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/**
 * A {@link KV} on PostgreSQL, through node-postgres (`pg`, an optional peer dependency: install it
 * to use this backend).
 *
 * **One table**, `key text PRIMARY KEY, value bytea NOT NULL, expires_at timestamptz`, created when
 * missing, and again when an operation finds it gone. Values are bytea, so lengths and ranges are
 * in UTF-8 bytes as on Redis; an expired row reads as absent and is deleted by a sweep every minute.
 *
 * **One atomic statement per operation**: `get` a SELECT, `set` an upsert, `delete` and `take` a
 * DELETE … RETURNING, `append` an upsert whose `WHERE` refuses growth past `maxValueBytes`,
 * `getRange` a substring, `exchange` an UPDATE of the row its sub-select locked (the old value
 * comes back; an absent key is an INSERT … ON CONFLICT DO NOTHING, tried again on conflict),
 * `compareAndSet` a conditional `INSERT … ON CONFLICT DO UPDATE … WHERE` (expected absent) or
 * `UPDATE … WHERE value = $expected` (or its prefix), which stamps one `clock_timestamp()` reading
 * into the value in the same statement. A compare that fails reads the current value in a second
 * statement.
 *
 * **The store's clock** is the database's `clock_timestamp()`: `time` reads it, `compareAndSet`
 * stamps and returns it, and TTLs are counted on it.
 *
 * **Bounded.** A pool of `poolSize` connections. Every statement is bounded on the server
 * (`statement_timeout`, `lock_timeout`) and on the client (`commandTimeoutMs`); the wait for a
 * pooled connection too. While the server does not answer, new connections are paced (at once,
 * then 100 ms doubling to 500 ms, jittered, until an operation is answered in time); an operation
 * that would need one sooner fails at once as unavailable.
 *
 * **No session state**, so that it works behind a transaction pooler (PgBouncer in any pool mode):
 * no startup parameter but `application_name` and `client_encoding`, no prepared statement, no
 * `SET` but `SET LOCAL`, no advisory lock, no transaction across two round trips. Each operation
 * is one simple query, `SET LOCAL statement_timeout …; SET LOCAL lock_timeout …; SET LOCAL
 * transaction_read_only = off; <statement>`, which PostgreSQL runs as one implicit transaction,
 * its values written in as hexadecimal literals.
 *
 * **Never a standby.** The third `SET LOCAL` fails on a server in recovery, so every operation
 * there, reads included, is a `StoreUnavailableError` naming the standby: a proxy or load balancer
 * that routes some connections to a replica never gets stale reads served to Roster.
 *
 * **Errors.** A server down, restarting or shutting down, a killed backend, too many connections,
 * a serialization failure or deadlock → `StoreUnavailableError` (a statement or lock timeout with
 * `timedOut`); wrong credentials, a missing privilege, an unknown database, a TLS refusal →
 * `StoreAccessError`; values over `maxValueBytes` → `ValueTooLargeError`; after
 * {@link PostgresKV.close} → `KVClosedError`.
 *
 * @example
 * ```ts
 * import { PostgresKV } from '@roster/kv-adapter/postgres';
 *
 * const kv = await PostgresKV.connect({ url: 'postgres://roster:s3cret@127.0.0.1:5432/app' });
 * try {
 *   await kv.append('roster/app/prod/join 0', ' node7');
 *   console.log(await kv.take('roster/app/prod/join 0')); // ' node7'
 * } finally {
 *   await kv.close();
 * }
 * ```
 */
export class PostgresKV implements KV {
  readonly name = 'PostgresKV';
  readonly capabilities: KVCapabilities = Object.freeze({ compareAndSet: true, time: true, comparePrefix: true });
  /** The table the keys are kept in. */
  readonly table: string;
  readonly #pool: Pool;
  readonly #sql: Statements;
  readonly #settings: PostgresSettings;
  /** The server-side bounds of every statement, set in its own (implicit) transaction. */
  readonly #bounds: string;
  #closed = false;
  #closing: Promise<void> | undefined;
  #creating: Promise<void> | undefined;
  readonly #operations: DatabaseOperations;

  /** `backOff` spaces out new connections while the server does not answer (see {@link gatedClient}). */
  private constructor(settings: PostgresSettings, pool: Pool, backOff: ConnectBackOff) {
    this.#settings = settings;
    this.#pool = pool;
    this.table = settings.table;
    this.#operations = new DatabaseOperations({
      ...settings,
      backend: this.name,
      store: 'postgres',
      backOff,
      poolSize: settings.pool.max ?? 1,
      closed: () => this.#closed,
      tableMissing: (error) => sqlState(error) === UNDEFINED_TABLE,
      ensureTable: () => this.#ensureTable(),
      mapError: mapPostgresError,
    });
    this.#sql = statements(settings.table);
    const ms = Math.ceil(settings.commandTimeoutMs);
    // `transaction_read_only = off` fails on a standby in recovery: every operation, reads too, is
    // refused there rather than served stale (a proxy or a load balancer routing to a replica).
    this.#bounds = `SET LOCAL statement_timeout = ${ms}; SET LOCAL lock_timeout = ${ms}; SET LOCAL transaction_read_only = off; `;
    // A connection that breaks (a killed backend, a restart) emits 'error': on an idle one the pool
    // re-emits it (and drops the connection); on one checked out, or being destroyed after a
    // failure, nobody listens. Each must be listened to, or it would crash the process.
    const lost = (error: Error): void => settings.logger.debug({ store: settings.target, error: error.message }, 'postgres: connection lost');
    pool.on('error', lost);
    pool.on('connect', (client) => client.on('error', lost));
  }

  /**
   * Connects to the database, creates the table when missing, and resolves once both are ready.
   * A database that refuses connections is tried again every 100 ms until `connectTimeoutMs`.
   *
   * @throws {@link ConfigError} for bad options (a bad URL: field `store`).
   * @throws {@link MissingDriverError} when `pg` is not installed.
   * @throws {@link StoreAccessError} at once for wrong credentials, an unknown database, a missing
   *   privilege (to create the table) or a TLS refusal.
   * @throws {@link StoreUnavailableError} when the database is not ready within `connectTimeoutMs`.
   */
  static async connect(options: PostgresKVOptions, { signal }: PostgresKVConnectOptions = {}): Promise<PostgresKV> {
    const settings = resolvePostgresSettings(options);
    const pg = await loadDriver('pg', 'PostgresKV', () => import('pg'));
    const PoolClass = (pg as unknown as { Pool?: typeof Pool }).Pool ?? pg.default.Pool;
    const ClientClass = (pg as unknown as { Client?: typeof Client }).Client ?? pg.default.Client;
    const backOff = new ConnectBackOff({ clock: settings.clock });
    const kv = new PostgresKV(settings, new PoolClass({ ...settings.pool, Client: gatedClient(ClientClass, backOff) }), backOff);
    try {
      await kv.#operations.waitUntilReady(() => kv.#ensureTable(), signal, (_, mapped) => mapped.message.replace(/^kv: store unavailable: connect: /, ''));
    } catch (error) {
      await kv.#destroy();
      throw error;
    }
    kv.#operations.scheduleSweep(() => kv.#query(kv.#sql.sweep, []));
    return kv;
  }

  get(key: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('get', key, options, async (q) => this.#read(key, await q(this.#sql.get, [key, this.#settings.limits.maxValueBytes])));
  }

  set(key: string, value: string, options?: SetOptions): Promise<void> {
    return this.#op('set', key, options, async (q) => {
      checkValue(key, value, this.#settings.limits);
      await q(this.#sql.set, [key, Buffer.from(value), ttlArgument(options?.ttlMs)]);
    });
  }

  delete(key: string, options?: KVOperationOptions): Promise<boolean> {
    return this.#op('delete', key, options, async (q) => {
      const { rows } = await q(this.#sql.delete, [key]);
      return rows[0]?.live === true;
    });
  }

  append(key: string, value: string, options?: KVOperationOptions): Promise<number> {
    return this.#op('append', key, options, async (q) => {
      const { limits } = this.#settings;
      checkValue(key, value, limits);
      const bytes = Buffer.from(value);
      const { rows } = await q(this.#sql.append, [key, bytes, limits.maxValueBytes]);
      if (rows[0] !== undefined) return Number(rows[0].size);
      // Refused: nothing was written. Its size is read again, for the error only.
      const { rows: now } = await q(this.#sql.size, [key]);
      throw new ValueTooLargeError(key, Number(now[0]?.size ?? 0) + bytes.length, limits.maxValueBytes);
    });
  }

  take(key: string, options?: KVOperationOptions): Promise<string | null> {
    // A value over the limit is taken (deleted) all the same, then reported as too large.
    return this.#op('take', key, options, async (q) => {
      const result = await q(this.#sql.take, [key, this.#settings.limits.maxValueBytes]);
      return result.rows[0]?.live === true ? this.#read(key, result) : null;
    });
  }

  getRange(key: string, start: number, end: number, options?: KVOperationOptions): Promise<string> {
    return this.#op('getRange', key, options, async (q) => {
      checkRange(start, end);
      const { rows } = await q(this.#sql.getRange, [key, start, end]);
      const value = rows[0]?.value as Buffer | undefined;
      if (value === undefined) return '';
      const text = value.toString('utf8');
      checkSize(key, text, this.#settings.limits);
      return text;
    });
  }

  exchange(key: string, value: string, options?: KVOperationOptions): Promise<string | null> {
    return this.#op('exchange', key, options, async (q) => {
      const { limits } = this.#settings;
      checkValue(key, value, limits);
      const bytes = Buffer.from(value);
      // Either the update of an existing row or the insert of an absent one applies; a racing
      // insert by another writer makes both miss, and the update then finds that writer's row.
      for (;;) {
        const updated = await q(this.#sql.exchangeUpdate, [key, bytes, limits.maxValueBytes]);
        if (updated.rows[0] !== undefined) return updated.rows[0].live === true ? this.#read(key, updated) : null;
        const inserted = await q(this.#sql.exchangeInsert, [key, bytes]);
        if (inserted.rowCount === 1) return null;
      }
    });
  }

  compareAndSet(key: string, expected: string | null, value: string, options?: CompareAndSetOptions): Promise<CompareAndSetResult> {
    return this.#op('compareAndSet', key, options, async (q) => {
      const { limits } = this.#settings;
      const { token, parts, ttl } = checkStampedWrite(key, expected, value, options, limits);
      const values: Parameter[] = [key, parts.map((part) => Buffer.from(part)), ttl];
      const statement = expected === null ? this.#sql.casAbsent : options?.prefix ? this.#sql.casPrefix : this.#sql.casEqual;
      if (expected !== null) values.push(Buffer.from(expected));
      const { rows } = await q(statement, values);
      const row = rows[0] as { ms: string; swapped: boolean; value: Buffer | null };
      const time = Number(row.ms);
      if (row.swapped) return { swapped: true, current: token === '' ? value : (row.value?.toString('utf8') ?? value), time };
      const current = this.#read(key, await q(this.#sql.get, [key, limits.maxValueBytes]));
      return { swapped: false, current, time };
    });
  }

  time(options?: KVOperationOptions): Promise<number> {
    return this.#op('time', undefined, options, async (q) => Number((await q(this.#sql.time, [])).rows[0].ms));
  }

  /**
   * Closes the pool: operations still in flight settle (each within `commandTimeoutMs`), then the
   * connections end; later operations reject with `KVClosedError`. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#destroy();
    return this.#closing;
  }

  /** Calls {@link PostgresKV.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #destroy(): Promise<void> {
    this.#closed = true;
    this.#operations.stopSweeps();
    const { clock, commandTimeoutMs } = this.#settings;
    await endPoolWithin(clock, commandTimeoutMs * 2, () => this.#pool.end());
  }

  /**
   * Runs one statement on a pooled connection. A connection obtained after `signal` aborted (the
   * caller gave up) is handed back unused, so that an abandoned write is never sent late. A
   * connection that failed (not a server error: a broken socket, pg's read timeout) is destroyed.
   */
  async #query(statement: Statement | string, values: Parameter[], signal?: AbortSignal): Promise<QueryResult> {
    const text = `${this.#bounds}${typeof statement === 'string' ? statement : render(statement, values)}`;
    const client = await this.#pool.connect();
    if (signal?.aborted) {
      client.release();
      throw abortReason(signal);
    }
    try {
      // Several statements in one query: pg resolves to one result each; the last is the statement's.
      const results = (await client.query(text)) as QueryResult | QueryResult[];
      client.release();
      return Array.isArray(results) ? results[results.length - 1]! : results;
    } catch (error) {
      client.release(sqlState(error) === undefined);
      throw error;
    }
  }

  /** A row of `get`, `take` or `exchange` as a string, or a {@link ValueTooLargeError}. */
  #read(key: string, { rows }: QueryResult): string | null {
    const row = rows[0] as { value: Buffer | null; size: number | string } | undefined;
    if (row === undefined) return null;
    const limit = this.#settings.limits.maxValueBytes;
    if (row.value === null || Number(row.size) > limit) throw new ValueTooLargeError(key, Number(row.size), limit);
    return row.value.toString('utf8');
  }

  /** Creates the table unless it exists; concurrent creators (here or in other processes) all succeed. */
  #ensureTable(): Promise<void> {
    this.#creating ??= this.#query(this.#sql.tableExists, [])
      .then(({ rows }) => (rows[0]?.exists === true ? undefined : this.#query(this.#sql.createTable, [])))
      .then(
        () => undefined,
        (error: unknown) => {
          if (CREATED_BY_ANOTHER.has(sqlState(error) ?? '')) return;
          throw error;
        },
      )
      .finally(() => (this.#creating = undefined));
    return this.#creating;
  }

  #op<T>(operation: string, key: string | undefined, options: KVOperationOptions | undefined, run: (query: Query) => Promise<T>): Promise<T> {
    return this.#operations.run(operation, key, options, (deadline) => run((statement, values) => this.#query(statement, values, deadline)));
  }
}

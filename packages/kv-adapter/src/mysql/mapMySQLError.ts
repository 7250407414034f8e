import { KVClosedError, KVRejectedError, RosterError, StoreAccessError, StoreUnavailableError } from '../errors.js';
import { accessDenied } from '../backend/accessDenied.js';

/** What {@link mapMySQLError} needs to know about the failed operation. */
export interface MySQLErrorContext {
  /** The backend name for {@link KVClosedError}. */
  readonly backend: string;
  /** The operation, for messages: `get`, `append`, … */
  readonly operation: string;
  /** True when the KV was closed (errors of operations cut short by `close()`). */
  readonly closed: boolean;
}

/**
 * Server error numbers of a server that cannot serve this client now, and may later:
 * 1040 too many connections, 1203 too many connections of this user, 1290 and 1836 read-only
 * (`read_only`, `super_read_only`, a replica), 1792 read-only transaction, 1205 lock wait timeout
 * (timed out: below), 1213 deadlock, 1053 server shutdown, 1077 normal shutdown, 1927 connection
 * killed (MariaDB's `KILL`), 1317 query interrupted (`KILL QUERY`), 1152/1184 aborted connection,
 * 1041/1037/1038 out of memory, 1021 disk full, 1081 socket error, 1158–1161 network errors,
 * 1129 host blocked (too many connection errors: `FLUSH HOSTS`), 4031 disconnected by the
 * server's idle timeout (MySQL 8), 2006/2013 server gone away or lost.
 */
const UNAVAILABLE = new Set([
  1040, 1203, 1290, 1836, 1792, 1213, 1053, 1077, 1927, 1317, 1152, 1184, 1041, 1037, 1038, 1021, 1081, 1158, 1159, 1160, 1161, 1129, 4031, 2006, 2013,
]);

/** Server error numbers of a bounded wait: 1205 lock wait timeout, 1969 `max_statement_time` (MariaDB), 3024 `MAX_EXECUTION_TIME` (MySQL). */
const TIMED_OUT = new Set([1205, 1969, 3024]);

/**
 * Server error numbers that refuse this client until its configuration changes: 1045 wrong
 * credentials, 1044 no access to the database, 1049 unknown database, 1142/1143 a missing table or
 * column privilege, 1227 a missing global privilege, 1130 host not allowed, 1251 authentication
 * method not supported, 3118/4151 account locked, 1820/1862 password expired, 3159 TLS required
 * by the server (`require_secure_transport`).
 */
const ACCESS = new Set([1045, 1044, 1049, 1142, 1143, 1227, 1130, 1251, 3118, 4151, 1820, 1862, 3159]);

/** MySQL's number for an unknown table: MySQLKV creates it again. */
export const NO_SUCH_TABLE = 1146;

/** The server's error number (mysql2's `errno` of an error reply, which has a `sqlState`), else `undefined`. */
export function serverErrno(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  const { errno, sqlState } = error as { errno?: unknown; sqlState?: unknown };
  return typeof errno === 'number' && errno > 0 && typeof sqlState === 'string' ? errno : undefined;
}

/**
 * True when the connection that failed with `error` is still usable: a server's error reply other
 * than one that ends the session. Anything else (a socket error, mysql2's timeout, a killed
 * connection) means the connection is to be dropped.
 */
export function connectionSurvives(error: unknown): boolean {
  const errno = serverErrno(error);
  return errno !== undefined && (error as { fatal?: unknown }).fatal !== true && ![1927, 1053, 1077, 2006, 2013, 4031].includes(errno);
}

/**
 * Maps a mysql2 failure to Roster's typed errors:
 * - the server cannot serve now (see above), a refused, reset or lost connection, a connection
 *   attempt that timed out → {@link StoreUnavailableError};
 * - lock wait timeout, `max_statement_time`, `MAX_EXECUTION_TIME`, mysql2's query timeout →
 *   {@link StoreUnavailableError} with `timedOut`;
 * - wrong credentials, missing privileges, an unknown database, TLS refusals (a certificate that
 *   fails verification, a server without TLS when TLS is required) → {@link StoreAccessError};
 * - every other server error → {@link KVRejectedError}, with its number;
 * - anything after `close()` → {@link KVClosedError};
 * - Roster errors and programming errors (`TypeError`, `RangeError`) pass through unchanged.
 *
 * @example
 * ```ts
 * mapMySQLError(Object.assign(new Error('Too many connections'), { errno: 1040, sqlState: '08004' }), { backend: 'MySQLKV', operation: 'get', closed: false });
 * // StoreUnavailableError: kv: store unavailable: get: Too many connections (1040)
 * ```
 */
export function mapMySQLError(error: unknown, context: MySQLErrorContext): unknown {
  if (RosterError.is(error)) return error;
  if (context.closed) return new KVClosedError(context.backend);
  if (error instanceof TypeError || error instanceof RangeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const reason = `${context.operation}: ${message}`;
  const errno = serverErrno(error);
  if (errno !== undefined) {
    if (TIMED_OUT.has(errno)) return new StoreUnavailableError(`${reason} (${errno})`, { cause: error, timedOut: true });
    if (UNAVAILABLE.has(errno)) return new StoreUnavailableError(`${reason} (${errno})`, { cause: error });
    if (ACCESS.has(errno)) return new StoreAccessError(`${reason} (${errno})`, { cause: error });
    return new KVRejectedError(`${reason} (${errno})`, { cause: error });
  }
  const tls = accessDenied(error);
  if (tls !== undefined) return new StoreAccessError(`${context.operation}: ${tls}`, { cause: error });
  const code = (error as { code?: unknown } | null)?.code;
  // mysql2 reports a failed TLS handshake as HANDSHAKE_SSL_ERROR, Node's code (CERT_HAS_EXPIRED,
  // UNABLE_TO_VERIFY_LEAF_SIGNATURE, …) overwritten: a verification failure, unless the socket merely broke.
  if (code === 'HANDSHAKE_SSL_ERROR' && !/socket hang up|ECONNRESET|EPIPE|closed/i.test(message)) {
    return new StoreAccessError(`${context.operation}: TLS: ${message}`, { cause: error });
  }
  if (code === 'HANDSHAKE_NO_SSL_SUPPORT' || /does not support secure connection/i.test(message)) {
    return new StoreAccessError(`${context.operation}: TLS: ${message}`, { cause: error });
  }
  if (code === 'PROTOCOL_SEQUENCE_TIMEOUT' || code === 'ETIMEDOUT') return new StoreUnavailableError(reason, { cause: error, timedOut: true });
  // Refused, reset or lost connections, and whatever else the client itself failed on.
  return new StoreUnavailableError(reason, { cause: error });
}

import { KVClosedError, KVRejectedError, RosterError, StoreAccessError, StoreUnavailableError } from '../errors.js';
import { accessDenied } from '../backend/accessDenied.js';

/** What {@link mapPostgresError} needs to know about the failed operation. */
export interface PostgresErrorContext {
  /** The backend name for {@link KVClosedError}. */
  readonly backend: string;
  /** The operation, for messages: `get`, `append`, … */
  readonly operation: string;
  /** True when the KV was closed (errors of operations cut short by `close()`). */
  readonly closed: boolean;
}

/**
 * SQLSTATEs of a server that cannot serve now: connection exceptions (class 08), shutdown and
 * start-up (57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 57P05 idle
 * session timeout), insufficient resources (class 53: too many connections, out of memory, disk
 * full), serialization failure and deadlock (40001, 40P01), a read-only server (25006, a standby).
 */
function isUnavailableState(code: string): boolean {
  return code.startsWith('08') || code.startsWith('53') || ['57P01', '57P02', '57P03', '57P05', '40001', '40P01', '25006', '58030'].includes(code);
}

/** SQLSTATEs of a bounded wait: 57014 query cancelled (`statement_timeout`), 55P03 lock not available (`lock_timeout`). */
const TIMED_OUT_STATES = new Set(['57014', '55P03']);

/**
 * SQLSTATEs that refuse this client until its configuration changes: class 28 (authentication,
 * no `pg_hba.conf` entry), 42501 insufficient privilege, 3D000 unknown database.
 */
function isAccessState(code: string): boolean {
  return code.startsWith('28') || code === '42501' || code === '3D000';
}

/**
 * What PgBouncer says, always as SQLSTATE 08P01 (protocol violation), when it refuses this client's
 * configuration (credentials, database, a startup parameter), as opposed to a server it cannot
 * reach now: retrying does not help.
 */
const POOLER_REFUSAL = /authentication failed|does not exist|no such (database|user)|unsupported startup parameter/i;

/** A standby refusing PostgresKV's `SET LOCAL transaction_read_only = off` (its reads may be stale). */
const STANDBY = /cannot set transaction read-write mode during recovery/i;

/** The SQLSTATE of a server error (pg's `DatabaseError`), else `undefined`. */
export function sqlState(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && 'severity' in error ? code : undefined;
}

/**
 * Maps a pg failure to Roster's typed errors:
 * - the server cannot serve now (see above), a standby in recovery (any operation: PostgresKV asks
 *   each for a read-write transaction), a lost, refused or reset connection, pg's
 *   "Connection terminated" and pool checkout timeouts → {@link StoreUnavailableError};
 * - `statement_timeout`, `lock_timeout`, pg's `query_timeout` → {@link StoreUnavailableError}
 *   with `timedOut`;
 * - authentication, privilege, unknown database, TLS refusals (a certificate that fails
 *   verification, a server without TLS when TLS is required), and PgBouncer's refusals of the
 *   same (its SQLSTATE 08P01 with such a message) → {@link StoreAccessError};
 * - every other server error → {@link KVRejectedError};
 * - anything after `close()` → {@link KVClosedError};
 * - Roster errors and programming errors (`TypeError`, `RangeError`) pass through unchanged.
 */
export function mapPostgresError(error: unknown, context: PostgresErrorContext): unknown {
  if (RosterError.is(error)) return error;
  if (context.closed) return new KVClosedError(context.backend);
  if (error instanceof TypeError || error instanceof RangeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const reason = `${context.operation}: ${message}`;
  const state = sqlState(error);
  if (state !== undefined) {
    if (STANDBY.test(message)) return new StoreUnavailableError(`${reason} (${state}: the server is a standby in recovery; a proxy or load balancer routing to a replica?)`, { cause: error });
    if (state === '08P01' && POOLER_REFUSAL.test(message)) return new StoreAccessError(`${reason} (${state}, from a pooler such as PgBouncer)`, { cause: error });
    if (TIMED_OUT_STATES.has(state)) return new StoreUnavailableError(`${reason} (${state})`, { cause: error, timedOut: true });
    if (isUnavailableState(state)) return new StoreUnavailableError(`${reason} (${state})`, { cause: error });
    if (isAccessState(state)) return new StoreAccessError(`${reason} (${state})`, { cause: error });
    return new KVRejectedError(`${reason} (${state})`, { cause: error });
  }
  const tls = accessDenied(error);
  if (tls !== undefined) return new StoreAccessError(`${context.operation}: ${tls}`, { cause: error });
  if (/does not support SSL/i.test(message)) return new StoreAccessError(`${context.operation}: TLS: ${message}`, { cause: error });
  if (/query read timeout|timeout exceeded|connection timeout/i.test(message)) return new StoreUnavailableError(reason, { cause: error, timedOut: true });
  // Refused, reset or terminated connections, and whatever else the client itself failed on.
  return new StoreUnavailableError(reason, { cause: error });
}

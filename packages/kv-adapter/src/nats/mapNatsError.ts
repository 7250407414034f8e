import { accessDenied } from '../backend/accessDenied.js';
import { KVClosedError, KVRejectedError, RosterError, StoreAccessError, StoreUnavailableError } from '../errors.js';

/** What {@link mapNatsError} needs to know about the failed operation. */
export interface NatsErrorContext {
  /** The backend name for {@link KVClosedError}. */
  readonly backend: string;
  /** The operation, for messages: `get`, `append`, … */
  readonly operation: string;
  /** True when the KV was closed (errors of operations cut short by `close()`). */
  readonly closed: boolean;
}

/** JetStream's code for a write whose expected last sequence of the key did not hold. */
export const WRONG_LAST_SEQUENCE = 10071;

/**
 * JetStream API codes of a system that cannot serve now: 10008 "JetStream system temporarily
 * unavailable" (no meta leader), 10023 insufficient resources, 10074 and 10077 (a stream or
 * cluster without quorum), 10039 JetStream not enabled (yet: a server still starting).
 */
const UNAVAILABLE_API_CODES = new Set([10008, 10023, 10039, 10074, 10077]);

/** The nats.js error names (matched by name, so that this module needs no driver) of a refused client. */
const ACCESS_NAMES = new Set(['AuthorizationError', 'UserAuthenticationExpiredError', 'PermissionViolationError']);
/** The nats.js error names of a connection that cannot serve now. */
const UNAVAILABLE_NAMES = new Set(['ConnectionError', 'ClosedConnectionError', 'DrainingConnectionError', 'RequestError', 'NoResponders', 'NoRespondersError', 'ProtocolError']);

/** The JetStream API error code of `error` (nats.js' `JetStreamApiError`), else `undefined`. */
export function jetStreamCode(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== 'JetStreamApiError') return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Maps a nats.js failure to Roster's typed errors:
 * - a timeout (the client's or the deadline's) → {@link StoreUnavailableError} with `timedOut`;
 * - a lost, refused or closed connection, "no responders" (nats.js' `JetStreamNotEnabled`: no
 *   leader for the bucket's stream yet, or no JetStream), JetStream "temporarily unavailable", a
 *   stream without quorum → {@link StoreUnavailableError};
 * - wrong credentials, an expired user, a permission violation, a TLS refusal or a server without
 *   TLS when TLS is required → {@link StoreAccessError};
 * - every other JetStream API error → {@link KVRejectedError};
 * - anything after `close()` → {@link KVClosedError};
 * - Roster errors and programming errors (`TypeError`, `RangeError`) pass through unchanged.
 */
export function mapNatsError(error: unknown, context: NatsErrorContext): unknown {
  if (RosterError.is(error)) return error;
  if (context.closed) return new KVClosedError(context.backend);
  if (error instanceof TypeError || error instanceof RangeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  const reason = `${context.operation}: ${message}`;
  const tls = accessDenied(error);
  if (tls !== undefined) return new StoreAccessError(`${context.operation}: ${tls}`, { cause: error });
  if (ACCESS_NAMES.has(name) || /authorization violation|authentication/i.test(message)) return new StoreAccessError(reason, { cause: error });
  if (/tls/i.test(message) && /not available|required/i.test(message)) return new StoreAccessError(`${context.operation}: TLS: ${message}`, { cause: error });
  if (name === 'TimeoutError' || /timeout/i.test(message)) return new StoreUnavailableError(reason, { cause: error, timedOut: true });
  const code = jetStreamCode(error);
  if (code !== undefined) {
    if (UNAVAILABLE_API_CODES.has(code)) return new StoreUnavailableError(`${reason} (${code})`, { cause: error });
    return new KVRejectedError(`${reason} (${code})`, { cause: error });
  }
  // nats.js' name for "no responders" on a JetStream request: no server answers for the bucket's stream.
  if (name === 'JetStreamNotEnabled') {
    return new StoreUnavailableError(`${context.operation}: no server answers for the bucket's stream (no stream leader yet, or JetStream not enabled)`, { cause: error });
  }
  if (UNAVAILABLE_NAMES.has(name)) return new StoreUnavailableError(reason, { cause: error });
  // Refused or reset sockets, and whatever else the client itself failed on.
  return new StoreUnavailableError(reason, { cause: error });
}

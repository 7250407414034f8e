/**
 * Typed errors shared by every Roster package.
 *
 * Every error is a {@link RosterError} with a literal `code`; match on the code (or use the
 * static `is` guards), never on the message. The guards work across duplicate copies of the
 * package because they check a global brand, not the prototype chain.
 *
 * @packageDocumentation
 */

const BRAND = Symbol.for('@roster/error');

/** The codes of every error Roster raises. */
export type RosterErrorCode =
  | 'KV_KEY_UNAVAILABLE'
  | 'KV_STORE_UNAVAILABLE'
  | 'KV_ACCESS_DENIED'
  | 'KV_INVALID_KEY'
  | 'KV_INVALID_VALUE'
  | 'KV_VALUE_TOO_LARGE'
  | 'KV_REJECTED'
  | 'KV_UNSUPPORTED'
  | 'KV_CLOSED'
  | 'KV_DRIVER_MISSING'
  | 'CONFIG_INVALID'
  | 'ABORTED'
  | (string & {});

/** The base class of every error Roster raises: a stable `code` and an optional `cause`. */
export class RosterError extends Error {
  /** A stable, machine-readable code; see {@link RosterErrorCode}. */
  readonly code: RosterErrorCode;

  constructor(code: RosterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True when `error` is a Roster error (from any copy of this package), optionally of `code`. */
  static is(error: unknown, code?: RosterErrorCode): error is RosterError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[BRAND] === true &&
      (code === undefined || (error as RosterError).code === code)
    );
  }
}

/**
 * This key cannot be served now (its shard is down, or a fault was injected for it), while the
 * store as a whole may still be reachable. Moving to another key (the next nonce of a
 * compound key) can heal it.
 */
export class KeyUnavailableError extends RosterError {
  /** The key that could not be served. */
  readonly key: string;
  constructor(key: string, options?: { cause?: unknown; reason?: string }) {
    super('KV_KEY_UNAVAILABLE', `kv: key ${JSON.stringify(key)} is unavailable${options?.reason ? `: ${options.reason}` : ''}`, options);
    this.key = key;
  }
  /** True when `error` is a {@link KeyUnavailableError} from any copy of this package. */
  static override is(error: unknown): error is KeyUnavailableError {
    return RosterError.is(error, 'KV_KEY_UNAVAILABLE');
  }
}

/**
 * The store as a whole cannot be reached: connection lost, operation timed out, server down.
 * Moving to another key does not help; retry later.
 */
export class StoreUnavailableError extends RosterError {
  /**
   * True when the operation was given up because its deadline passed (see `withDeadline`): the
   * store did not answer in time. On a sharded store that is often one key's shard, not the store.
   */
  readonly timedOut: boolean;
  /**
   * True when the deadline passed on an operation that had to wait for one of this client's
   * pooled connections (the database stores, etcd): it was still waiting (never sent), or it was
   * sent late, with little of its deadline left. The timeout says that this client asks more than
   * its pool serves, not that the key is unavailable: a writer does not move off it.
   */
  readonly queued: boolean;
  constructor(message: string, options?: { cause?: unknown; timedOut?: boolean; queued?: boolean }) {
    super('KV_STORE_UNAVAILABLE', `kv: store unavailable: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.timedOut = options?.timedOut === true;
    this.queued = this.timedOut && options?.queued === true;
  }
  /** True when `error` is a {@link StoreUnavailableError} from any copy of this package. */
  static override is(error: unknown): error is StoreUnavailableError {
    return RosterError.is(error, 'KV_STORE_UNAVAILABLE');
  }
}

/**
 * Says of `reason`, the reason a deadline's signal aborted with, that the operation it bounded had
 * waited for a connection ({@link StoreUnavailableError.queued}), when it is a timeout. Called by
 * the pool in the abort's own dispatch, before the caller sees the error. A deadline bounds one
 * operation (`withDeadline`), so its reason speaks of that one.
 */
export function markQueued(reason: unknown): void {
  if (StoreUnavailableError.is(reason) && reason.timedOut) (reason as { queued: boolean }).queued = true;
}

/**
 * The store refused this client for good: its TLS certificate failed verification (wrong CA,
 * expired, wrong host name), the server wants a client certificate, the credentials are wrong
 * (`WRONGPASS`), or the ACL user lacks a permission Roster needs (`NOPERM`). Retrying does not
 * help; fix the configuration.
 */
export class StoreAccessError extends RosterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('KV_ACCESS_DENIED', `kv: store refused access: ${message}`, options);
  }
  /** True when `error` is a {@link StoreAccessError} from any copy of this package. */
  static override is(error: unknown): error is StoreAccessError {
    return RosterError.is(error, 'KV_ACCESS_DENIED');
  }
}

/** A key that Roster or the store refuses: empty, too long, or not well-formed text. */
export class InvalidKeyError extends RosterError {
  /** The offending key (truncated to 200 characters). */
  readonly key: string;
  constructor(key: string, reason: string) {
    super('KV_INVALID_KEY', `kv: invalid key ${JSON.stringify(String(key).slice(0, 200))}: ${reason}`);
    this.key = String(key).slice(0, 200);
  }
}

/** A value that is not a well-formed string. */
export class InvalidValueError extends RosterError {
  constructor(key: string, reason: string) {
    super('KV_INVALID_VALUE', `kv: invalid value for key ${JSON.stringify(key)}: ${reason}`);
  }
}

/** A value, written or read, that is larger than the configured `maxValueBytes`. */
export class ValueTooLargeError extends RosterError {
  /** The key whose value was too large. */
  readonly key: string;
  /** The size of the value in bytes (UTF-8). */
  readonly bytes: number;
  /** The configured limit in bytes. */
  readonly limit: number;
  constructor(key: string, bytes: number, limit: number) {
    super('KV_VALUE_TOO_LARGE', `kv: value for key ${JSON.stringify(key)} is ${bytes} bytes, over the limit of ${limit} bytes`);
    this.key = key;
    this.bytes = bytes;
    this.limit = limit;
  }
  static override is(error: unknown): error is ValueTooLargeError {
    return RosterError.is(error, 'KV_VALUE_TOO_LARGE');
  }
}

/** The store refused the operation for a reason other than availability (e.g. a Redis error reply). */
export class KVRejectedError extends RosterError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('KV_REJECTED', `kv: the store rejected the operation: ${message}`, options);
  }
}

/** The backend does not offer an optional capability (see `KV.capabilities`). */
export class UnsupportedOperationError extends RosterError {
  constructor(operation: string, backend: string) {
    super('KV_UNSUPPORTED', `kv: ${backend} does not support ${operation}`);
  }
}

/**
 * A store URL names a backend whose driver, an optional peer dependency of this package, is not
 * installed (`ioredis` for `redis://`, `pg` for `postgres://`, `mysql2` for `mysql://`). Install the package named by
 * `packageName`.
 */
export class MissingDriverError extends RosterError {
  /** The npm package to install, e.g. `"pg"`. */
  readonly packageName: string;
  constructor(packageName: string, backend: string, options?: { cause?: unknown }) {
    super('KV_DRIVER_MISSING', `kv: ${backend} needs the package \`${packageName}\`, which is not installed (npm install ${packageName})`, options);
    this.packageName = packageName;
  }
  /** True when `error` is a {@link MissingDriverError} from any copy of this package. */
  static override is(error: unknown): error is MissingDriverError {
    return RosterError.is(error, 'KV_DRIVER_MISSING');
  }
}

/** The KV was closed; no operation is possible any more. */
export class KVClosedError extends RosterError {
  constructor(backend: string) {
    super('KV_CLOSED', `kv: ${backend} is closed`);
  }
}

/**
 * An invalid configuration value. `field` names the option; `value` is what was given.
 *
 * @example
 * ```ts
 * throw new ConfigError('timeoutMs', 150, 'Expected `timeoutMs` to be greater than twice `intervalMs` (100)');
 * ```
 */
export class ConfigError extends RosterError {
  /** The name of the offending option. */
  readonly field: string;
  /** The offending value as given. */
  readonly value: unknown;
  constructor(field: string, value: unknown, message: string) {
    super('CONFIG_INVALID', `config: ${message}, got ${describe(value)}`);
    this.field = field;
    this.value = value;
  }
  /** True when `error` is a {@link ConfigError} from any copy of this package. */
  static override is(error: unknown): error is ConfigError {
    return RosterError.is(error, 'CONFIG_INVALID');
  }
}

/** An operation was cancelled through its `AbortSignal`. */
export class AbortError extends RosterError {
  constructor(options?: { cause?: unknown }) {
    super('ABORTED', 'the operation was aborted', options);
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === undefined || value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value)?.slice(0, 120) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

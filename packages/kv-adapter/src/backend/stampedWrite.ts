import { ConfigError, InvalidValueError, ValueTooLargeError } from '../errors.js';
import type { CompareAndSetOptions } from '../KV.js';
import { checkValue, type Limits } from '../validate.js';

/** The digits of a stamp (ms since the epoch) until the year 2286. */
export const STAMP_DIGITS = 13;

/** What {@link checkStampedWrite} returns. */
export interface StampedWrite {
  /** `stampToken`, `""` when none. */
  readonly token: string;
  /** The value split at each token: the stamp goes between two parts. */
  readonly parts: string[];
  /** The TTL in ms, or null for none ({@link ttlArgument}). */
  readonly ttl: number | null;
}

/**
 * Checks the arguments of a `compareAndSet` on a store that stamps its clock into the value
 * (PostgresKV, MySQLKV): the value, `expected` (a string or null), `stampToken`, the size of the
 * value once each token is a {@link STAMP_DIGITS}-digit stamp, and the TTL.
 *
 * @throws {@link InvalidValueError}, {@link ConfigError} or {@link ValueTooLargeError}.
 */
export function checkStampedWrite(key: string, expected: string | null, value: string, options: CompareAndSetOptions | undefined, limits: Limits): StampedWrite {
  checkValue(key, value, limits);
  if (expected !== null && typeof expected !== 'string') {
    throw new InvalidValueError(key, `expected \`expected\` to be a string or null, got ${typeof expected}`);
  }
  const token = options?.stampToken ?? '';
  if (typeof token !== 'string') throw new ConfigError('stampToken', token, 'Expected `stampToken` to be a string');
  const parts = token === '' ? [value] : value.split(token);
  const stampedBytes = Buffer.byteLength(value) + (parts.length - 1) * (STAMP_DIGITS - Buffer.byteLength(token));
  if (stampedBytes > limits.maxValueBytes) throw new ValueTooLargeError(key, stampedBytes, limits.maxValueBytes);
  return { token, parts, ttl: ttlArgument(options?.ttlMs) };
}

/**
 * A TTL in ms for the statements: a positive number rounded up, or null for none.
 *
 * @throws {@link ConfigError} for anything but a positive number.
 */
export function ttlArgument(ttlMs: number | undefined): number | null {
  if (ttlMs === undefined) return null;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new ConfigError('ttlMs', ttlMs, 'Expected `ttlMs` to be a positive number');
  }
  return Math.ceil(ttlMs);
}

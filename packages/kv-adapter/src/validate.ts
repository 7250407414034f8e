import { InvalidKeyError, InvalidValueError, ValueTooLargeError } from './errors.js';
import { DEFAULT_LIMITS, type KVLimits } from './KV.js';

/** Resolved limits. */
export type Limits = Required<KVLimits>;

/** Merges user limits with the defaults. */
export function resolveLimits(limits: KVLimits | undefined): Limits {
  return { ...DEFAULT_LIMITS, ...limits };
}

/** Throws {@link InvalidKeyError} unless `key` is a non-empty, well-formed string within the limit. */
export function checkKey(key: unknown, limits: Limits): asserts key is string {
  if (typeof key !== 'string') throw new InvalidKeyError(`(${typeof key})`, `expected a string, got ${typeof key}`);
  if (key.length === 0) throw new InvalidKeyError(key, 'empty');
  if (!key.isWellFormed()) throw new InvalidKeyError(key, 'not well-formed UTF-16 (lone surrogate)');
  const bytes = Buffer.byteLength(key);
  if (bytes > limits.maxKeyBytes) throw new InvalidKeyError(key, `${bytes} bytes, over the limit of ${limits.maxKeyBytes}`);
}

/** Throws unless `value` is a well-formed string within the size limit. */
export function checkValue(key: string, value: unknown, limits: Limits): asserts value is string {
  if (typeof value !== 'string') throw new InvalidValueError(key, `expected a string, got ${typeof value}`);
  if (!value.isWellFormed()) throw new InvalidValueError(key, 'not well-formed UTF-16 (lone surrogate)');
  checkSize(key, value, limits);
}

/** Throws {@link ValueTooLargeError} when `value` is over `limits.maxValueBytes`. */
export function checkSize(key: string, value: string, limits: Limits): void {
  // A UTF-8 byte is at most 3 per UTF-16 unit: skip the exact count when it cannot matter.
  if (value.length * 3 <= limits.maxValueBytes) return;
  const bytes = Buffer.byteLength(value);
  if (bytes > limits.maxValueBytes) throw new ValueTooLargeError(key, bytes, limits.maxValueBytes);
}

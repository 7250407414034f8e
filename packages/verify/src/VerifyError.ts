import { RosterError } from '@roster/kv-adapter';

/**
 * A run of `runVerify()` that could not start: a bad option, or the store unreachable. Code
 * `VERIFY_INVALID`, with the option at fault and its value.
 */
export class VerifyError extends RosterError {
  /** The option at fault, e.g. `nodes` or `store`. */
  readonly field: string;
  /** The value given (a store URL with its password hidden). */
  readonly value: unknown;

  constructor(field: string, value: unknown, message: string, options?: { cause?: unknown }) {
    super('VERIFY_INVALID', `${message}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`, options);
    this.field = field;
    this.value = value;
  }
}

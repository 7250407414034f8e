/** The brand of every Roster error (see `RosterError.is` in `@roster/kv-adapter`). */
const BRAND = Symbol.for('@roster/error');

/**
 * An invalid option of {@link connectDaemon}: `field` names it, `value` is what was given. It
 * carries the code `CONFIG_INVALID` and the Roster error brand, so `ConfigError.is()` and
 * `RosterError.is()` of `@roster/kv-adapter` recognise it too (this package has no dependency to
 * share the class with).
 *
 * @example
 * ```ts
 * try {
 *   connectDaemon('ftp://localhost');
 * } catch (error) {
 *   if (ConfigError.is(error)) console.error(error.field, error.message);
 * }
 * ```
 */
export class ConfigError extends Error {
  /** Always `CONFIG_INVALID`. */
  readonly code = 'CONFIG_INVALID';
  /** The name of the offending option. */
  readonly field: string;
  /** The offending value as given. */
  readonly value: unknown;

  constructor(field: string, value: unknown, message: string) {
    super(`config: ${message}, got ${describe(value)}`);
    this.name = 'ConfigError';
    this.field = field;
    this.value = value;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** True when `error` is a Roster `ConfigError`, from this package or `@roster/kv-adapter`. */
  static is(error: unknown): error is ConfigError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[BRAND] === true &&
      (error as { code?: unknown }).code === 'CONFIG_INVALID'
    );
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (value instanceof URL) return JSON.stringify(value.href);
  return String(value);
}

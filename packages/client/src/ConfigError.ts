// The same brand and code as `ConfigError` of @roster/kv-adapter, so that `RosterError.is` and
// `ConfigError.is` of any Roster package recognise this one too, without a runtime dependency.
const BRAND = Symbol.for('@roster/error');

/**
 * An option of {@link connectDaemon} is invalid. `code` is `'CONFIG_INVALID'`, `field` names the
 * option and `value` is what was given.
 *
 * @example
 * ```ts
 * try {
 *   connectDaemon('https://127.0.0.1:8080/');
 * } catch (error) {
 *   if (ConfigError.is(error)) console.error(error.field, error.message);
 * }
 * ```
 */
export class ConfigError extends Error {
  /** Always `'CONFIG_INVALID'`. */
  readonly code = 'CONFIG_INVALID' as const;
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
  /** True when `error` is a `ConfigError` of any Roster package (or copy of one). */
  static is(error: unknown): error is ConfigError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true && (error as { code?: unknown }).code === 'CONFIG_INVALID';
  }
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return String(value);
}

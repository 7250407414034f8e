/**
 * The logging seam. Roster never writes to the console; it calls a {@link Logger}.
 * The shape is pino's (`logger.info({ fields }, 'message')`), so a pino logger can be passed as is.
 */
export interface Logger {
  /** Detail useful when debugging the protocol. */
  debug(fields: object, message?: string): void;
  /** Notable events: role and leader changes. */
  info(fields: object, message?: string): void;
  /** Something went wrong and was handled: a failed operation, garbage in a key. */
  warn(fields: object, message?: string): void;
  /** Something went wrong that the library could not handle. */
  error(fields: object, message?: string): void;
}

/** A logger that drops everything: the default. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

/** A logger that records every call in memory; useful in tests and for post-mortems. */
export class MemoryLogger implements Logger {
  /** Every entry logged, oldest first. */
  readonly entries: { level: 'debug' | 'info' | 'warn' | 'error'; fields: object; message?: string }[] = [];
  debug(fields: object, message?: string): void {
    this.entries.push({ level: 'debug', fields, message });
  }
  info(fields: object, message?: string): void {
    this.entries.push({ level: 'info', fields, message });
  }
  warn(fields: object, message?: string): void {
    this.entries.push({ level: 'warn', fields, message });
  }
  error(fields: object, message?: string): void {
    this.entries.push({ level: 'error', fields, message });
  }
}

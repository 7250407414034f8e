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

/** The four levels of a {@link Logger}. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** A base for loggers that handle every level in one place: implement {@link LevelLogger.log}. */
export abstract class LevelLogger implements Logger {
  /** Handles one entry. */
  protected abstract log(level: LogLevel, fields: object, message?: string): void;
  debug(fields: object, message?: string): void {
    this.log('debug', fields, message);
  }
  info(fields: object, message?: string): void {
    this.log('info', fields, message);
  }
  warn(fields: object, message?: string): void {
    this.log('warn', fields, message);
  }
  error(fields: object, message?: string): void {
    this.log('error', fields, message);
  }
}

/**
 * Where the client reports skipped lines and link changes. The shape is pino's
 * (`logger.warn({ fields }, 'message')`), and it is the same as the `Logger` of the other Roster
 * packages, so one logger serves them all.
 */
export interface Logger {
  /** Retries and ignored event types. */
  debug(fields: object, message?: string): void;
  /** The link going up or down. */
  info(fields: object, message?: string): void;
  /** Skipped lines, and the first failure to reach the daemon. */
  warn(fields: object, message?: string): void;
  /** A watch function that threw. */
  error(fields: object, message?: string): void;
}

/** A logger that drops everything: the default. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

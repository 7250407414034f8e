/**
 * Where the client reports what it skips and how its link to the daemon fares. The shape is
 * pino's, and the same as `Logger` of `@roster/kv-adapter`, so either can be passed as is.
 */
export interface Logger {
  /** Reconnection attempts, unknown event types. */
  debug(fields: object, message?: string): void;
  /** The link went up or down. */
  info(fields: object, message?: string): void;
  /** A line that is not an event of the contract; the daemon cannot be reached. */
  warn(fields: object, message?: string): void;
  /** A watch function threw. */
  error(fields: object, message?: string): void;
}

/** A logger that drops everything: the default. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});

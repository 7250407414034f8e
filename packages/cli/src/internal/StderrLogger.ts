import { type Logger, type LogLevel } from '@roster/kv-adapter';
import { LevelLogger } from '@roster/kv-adapter/internal';
import type { Logger as Pino } from 'pino';
import { PINO_LEVELS, type SidecarLevel } from './logFormat.js';
import { createSidecarPino, type LineSink, type SidecarPinoOptions } from './sidecarPino.js';

/** The levels of {@link StderrLogger}, least severe first. */
export type { LogLevel, SidecarLevel };
export type { LineSink };

/** Options of {@link StderrLogger}: those of the pino logger behind it. */
export type StderrLoggerOptions = SidecarPinoOptions;

/**
 * The library's {@link Logger} on the sidecar's stderr, through pino (see `createSidecarPino`):
 * one line per entry, pino's JSON or the text form of it, synchronously, with the store's
 * passwords redacted. Entries below its level are dropped. Beyond the four levels of the
 * library's interface, {@link StderrLogger.fatal} writes the line before a failed exit.
 */
export class StderrLogger extends LevelLogger implements Logger {
  /** The pino logger behind this one. */
  readonly pino: Pino;

  /** A logger writing to `sink`, or (given a pino logger) one in front of that logger. */
  constructor(sink: LineSink | Pino, options: StderrLoggerOptions = {}) {
    super();
    this.pino = isPino(sink) ? sink : createSidecarPino(sink, options);
  }

  /** A logger on the same output that drops entries below `level` (never lowers this one's level). */
  atLeast(level: LogLevel): StderrLogger {
    const current = this.pino.level as SidecarLevel;
    if (PINO_LEVELS[level] <= PINO_LEVELS[current]) return this;
    return new StderrLogger(this.pino.child({}, { level }));
  }

  /** The last line before the process exits with an error. */
  fatal(fields: object, message?: string): void {
    this.log('fatal', fields, message);
  }

  protected override log(level: SidecarLevel, fields: object, message: string | undefined): void {
    if (message === undefined) this.pino[level](fields);
    else this.pino[level](fields, message);
  }
}

function isPino(value: LineSink | Pino): value is Pino {
  return typeof (value as Pino).child === 'function' && typeof (value as Pino).levels === 'object';
}

/** `HH:MM:SS.mmm` in local time: the prefix of the human event lines on stdout. */
export function clockTime(at: Date): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

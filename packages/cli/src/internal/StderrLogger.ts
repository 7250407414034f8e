import { hostname } from 'node:os';
import { LevelLogger, type LogLevel } from '@roster/kv-adapter';
import { formatJsonLogLine, formatTextLogLine, type LogBase, type LogFormat } from './logFormat.js';
import { SecretScrubber } from './scrubSecrets.js';

/** The levels of {@link StderrLogger}, least severe first. */
export type { LogLevel };

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Something a log line can be written to: `process.stderr`, or a test's buffer. */
export interface LineSink {
  write(text: string): unknown;
}

/** Options of {@link StderrLogger}. */
export interface StderrLoggerOptions {
  /** Entries below this level are dropped. @defaultValue "info" */
  readonly level?: LogLevel;
  /** `text` (one line for people) or `json` (pino's shape). @defaultValue "text" */
  readonly format?: LogFormat;
  /** Sees every entry as a text line, whatever the format (the status page keeps the recent ones). */
  readonly tap?: (line: string) => void;
  /** Hides passwords in every line written or tapped. @defaultValue one that hides URL passwords */
  readonly scrubber?: SecretScrubber;
  /** `pid` and `hostname` of the JSON lines. @defaultValue this process's */
  readonly base?: LogBase;
  /** The time of an entry. @defaultValue `new Date()` */
  readonly now?: () => Date;
}

/**
 * A {@link Logger} that writes one line per entry to stderr, as text
 * (`2026-11-26T13:00:01.234+01:00 WARN  publish failed err="kv: store unavailable: …"`) or as one
 * pino-compatible JSON object (see `formatJsonLogLine`). Entries below `level` are dropped; every
 * line passes through the scrubber, so that no password is printed.
 */
export class StderrLogger extends LevelLogger {
  readonly #sink: LineSink;
  readonly #options: StderrLoggerOptions;
  readonly #min: number;
  readonly #scrubber: SecretScrubber;
  readonly #base: LogBase;

  constructor(sink: LineSink, options: StderrLoggerOptions = {}) {
    super();
    this.#sink = sink;
    this.#options = options;
    this.#min = RANK[options.level ?? 'info'];
    this.#scrubber = options.scrubber ?? new SecretScrubber();
    this.#base = options.base ?? { pid: process.pid, hostname: hostname() };
  }

  /** A logger on the same sink that drops entries below `level` (never lowers this one's level). */
  atLeast(level: LogLevel): StderrLogger {
    const rank = Math.max(this.#min, RANK[level]);
    const name = (Object.keys(RANK) as LogLevel[]).find((l) => RANK[l] === rank)!;
    return new StderrLogger(this.#sink, { ...this.#options, level: name, scrubber: this.#scrubber, base: this.#base });
  }

  protected log(level: LogLevel, fields: object, message: string | undefined): void {
    if (RANK[level] < this.#min) return;
    const at = this.#options.now?.() ?? new Date();
    const text = this.#scrubber.scrub(formatTextLogLine(at, level, fields, message));
    this.#options.tap?.(text);
    const line = this.#options.format === 'json' ? this.#scrubber.scrub(formatJsonLogLine(at, level, fields, message, this.#base)) : text;
    this.#sink.write(`${line}\n`);
  }
}

/** `HH:MM:SS.mmm` in local time: the prefix of the human event lines on stdout. */
export function clockTime(at: Date): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

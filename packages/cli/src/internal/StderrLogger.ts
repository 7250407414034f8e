import { LevelLogger, type LogLevel } from '@roster/kv-adapter';

/** The levels of {@link StderrLogger}, least severe first. */
export type { LogLevel };

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Something a log line can be written to: `process.stderr`, or a test's buffer. */
export interface LineSink {
  write(text: string): unknown;
}

/**
 * A {@link Logger} that writes one readable line per entry to stderr:
 * `12:00:01.234 WARN  publish failed err="kv: store unavailable: …"`.
 * Entries below `level` are dropped. `tap` sees every line written (the status page keeps the
 * recent ones).
 */
export class StderrLogger extends LevelLogger {
  readonly #sink: LineSink;
  readonly #min: number;
  readonly #tap: ((line: string) => void) | undefined;

  constructor(sink: LineSink, level: LogLevel = 'info', tap?: (line: string) => void) {
    super();
    this.#sink = sink;
    this.#min = RANK[level];
    this.#tap = tap;
  }

  /** A logger on the same sink that drops entries below `level` (never lowers this one's level). */
  atLeast(level: LogLevel): StderrLogger {
    const rank = Math.max(this.#min, RANK[level]);
    const name = (Object.keys(RANK) as LogLevel[]).find((l) => RANK[l] === rank)!;
    return new StderrLogger(this.#sink, name, this.#tap);
  }

  protected log(level: LogLevel, fields: object, message: string | undefined): void {
    if (RANK[level] < this.#min) return;
    const line = formatLogLine(new Date(), level, fields, message);
    this.#tap?.(line);
    this.#sink.write(`${line}\n`);
  }
}

/** `HH:MM:SS.mmm LEVEL message key=value …`, local time. */
export function formatLogLine(at: Date, level: LogLevel, fields: object, message: string | undefined): string {
  const parts = [clockTime(at), level.toUpperCase().padEnd(5)];
  if (message) parts.push(message);
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`${key}=${formatValue(value)}`);
  }
  return parts.join(' ');
}

/** `HH:MM:SS.mmm` in local time. */
export function clockTime(at: Date): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /^[\w.:/@-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

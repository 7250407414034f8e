import type { LogLevel } from '@roster/kv-adapter';
import { CliError } from '../CliError.js';

/** The formats of `--log-format`. */
export const LOG_FORMATS = ['text', 'json'] as const;
/** One format of `--log-format`: `text` for people, `json` for a log pipeline. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** pino's level numbers. */
export const PINO_LEVELS: Readonly<Record<LogLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50 };

/** The keys every JSON line starts with; a field of the same name is dropped. */
const RESERVED = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** The help line of `--log-format`, shared by the commands' `--help`. */
export const LOG_FORMAT_HELP = `  --log-format FORMAT   the logs on stderr: text (one line for people) or json (one
                        pino-compatible object per line, docs/cli.md) [default: text]`;

/** The value of `--log-format`, `text` when absent. @throws {@link CliError} for another value. */
export function logFormatOption(command: string, raw: string | undefined): LogFormat {
  if (raw === undefined) return 'text';
  if ((LOG_FORMATS as readonly string[]).includes(raw)) return raw as LogFormat;
  throw new CliError(`${command}: --log-format must be text or json, got ${JSON.stringify(raw)}`);
}

/**
 * `at` in ISO 8601 with milliseconds and the local offset: `2026-11-26T13:10:39.235+01:00`.
 */
export function isoLocalTime(at: Date): string {
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const offset = -at.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return (
    `${pad(at.getFullYear(), 4)}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}` +
    `T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}` +
    `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** `2026-11-26T13:10:39.235+01:00 INFO  message key=value …`: one line for people, local time. */
export function formatTextLogLine(at: Date, level: LogLevel, fields: object, message: string | undefined): string {
  const parts = [isoLocalTime(at), level.toUpperCase().padEnd(5)];
  if (message) parts.push(message);
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) parts.push(`${key}=${formatTextValue(value)}`);
  }
  return parts.join(' ');
}

function formatTextValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value, jsonReplacer()) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The process fields of a JSON line (pino's `base`). */
export interface LogBase {
  readonly pid: number;
  readonly hostname: string;
}

/**
 * One JSON object in pino's shape:
 * `{"level":30,"time":"2026-11-26T12:10:39.235Z","pid":4242,"hostname":"web-1","id":"web-1",…,"msg":"node running"}`:
 * `level` is pino's number (20 debug, 30 info, 40 warn, 50 error), `time` is pino's `isoTime`
 * (UTC), then `pid` and `hostname`, the entry's fields, and `msg` last (absent without a message).
 * An `Error` (in `err` or any field) becomes `{type, message, stack}` plus its `code` and `cause`
 * when it has them; a bigint becomes a string.
 */
export function formatJsonLogLine(at: Date, level: LogLevel, fields: object, message: string | undefined, base: LogBase): string {
  const entry: Record<string, unknown> = { level: PINO_LEVELS[level], time: at.toISOString(), pid: base.pid, hostname: base.hostname };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && !RESERVED.has(key)) entry[key] = value;
  }
  if (message !== undefined && message !== '') entry.msg = message;
  try {
    return JSON.stringify(entry, jsonReplacer());
  } catch (error) {
    return JSON.stringify({ level: entry.level, time: entry.time, pid: base.pid, hostname: base.hostname, msg: message, logError: String(error) });
  }
}

/** pino's error serializer, in short: the class, message, stack, and `code`/`cause` when present. */
export function serializeError(error: Error, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.constructor?.name ?? error.name, message: error.message, stack: error.stack ?? '' };
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (code !== undefined) out.code = code;
  if (cause !== undefined && depth < 5) out.cause = cause instanceof Error ? serializeError(cause, depth + 1) : cause;
  return out;
}

/** A JSON replacer: errors serialized, bigints as strings, cycles cut. */
function jsonReplacer(): (key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return (_key, value) => {
    if (typeof value === 'bigint') return String(value);
    if (value instanceof Error) return serializeError(value);
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

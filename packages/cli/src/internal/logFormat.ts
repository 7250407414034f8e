import type { LogLevel } from '@roster/kv-adapter';

/** The formats of `--log-format`. */
export const LOG_FORMATS = ['text', 'json'] as const;
/** One format of `--log-format`: `text` for people, `json` for a log pipeline. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The levels the sidecar logs at: the library's four, and `fatal` for the line before a failed exit. */
export type SidecarLevel = LogLevel | 'fatal';

/** pino's level numbers. */
export const PINO_LEVELS: Readonly<Record<SidecarLevel, number>> = { debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/** The keys pino writes first (`level`, `time`, then its `base`) and last (`msg`); a field of the same name is dropped. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * The format `args` ask for with `--log-format json` or `--log-format=json` (the last one given,
 * none after `--`), read before the command parses them, so that even a line reporting bad
 * arguments is in that format. Anything else is `text`.
 */
export function requestedLogFormat(args: readonly string[]): LogFormat {
  let format: LogFormat = 'text';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === '--log-format') format = args[++i] === 'json' ? 'json' : 'text';
    else if (arg.startsWith('--log-format=')) format = arg.slice('--log-format='.length) === 'json' ? 'json' : 'text';
  }
  return format;
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

const LEVEL_NAMES = new Map(Object.entries(PINO_LEVELS).map(([name, number]) => [number, name.toUpperCase()]));

/**
 * One line of pino's JSON output (already parsed) for people:
 * `2026-11-26T13:10:39.235+01:00 INFO  message key=value …`, in local time, the fields in pino's
 * order; an error (pino's serialized `{type, message, stack}`) shows as its message.
 */
export function formatTextLogLine(entry: Readonly<Record<string, unknown>>): string {
  const at = typeof entry.time === 'string' || typeof entry.time === 'number' ? new Date(entry.time) : undefined;
  const time = at && !Number.isNaN(at.getTime()) ? isoLocalTime(at) : String(entry.time);
  const level = (typeof entry.level === 'number' && LEVEL_NAMES.get(entry.level)) || String(entry.level).toUpperCase();
  const parts = [time, level.padEnd(5)];
  if (typeof entry.msg === 'string' && entry.msg !== '') parts.push(entry.msg);
  for (const [key, value] of Object.entries(entry)) {
    if (!RESERVED_KEYS.has(key) && value !== undefined) parts.push(`${key}=${formatTextValue(value)}`);
  }
  return parts.join(' ');
}

function formatTextValue(value: unknown): string {
  if (isSerializedError(value)) return JSON.stringify(value.message);
  if (typeof value === 'string') return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** pino's serialized error: `{type, message, stack, …}`. */
function isSerializedError(value: unknown): value is { type: string; message: string; stack: string } {
  if (typeof value !== 'object' || value === null) return false;
  const { type, message, stack } = value as Record<string, unknown>;
  return typeof type === 'string' && typeof message === 'string' && typeof stack === 'string';
}

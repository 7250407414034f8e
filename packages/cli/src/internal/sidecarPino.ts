import { hostname } from 'node:os';
import { redactStoreUrl } from '@roster/kv-adapter';
import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import type { OutputStream } from '../commands/Command.js';
import { formatTextLogLine, RESERVED_KEYS, type LogFormat, type SidecarLevel } from './logFormat.js';
import { SecretScrubber } from './scrubSecrets.js';

/** Something a log line can be written to: `process.stderr` (see {@link stderrSink}), or a test's buffer. */
export interface LineSink {
  write(text: string): unknown;
}

/** The process fields of a JSON line (pino's `base`). */
export interface LogBase {
  readonly pid: number;
  readonly hostname: string;
}

/** Options of {@link createSidecarPino}. */
export interface SidecarPinoOptions {
  /** Entries below this level are dropped. @defaultValue "info" */
  readonly level?: SidecarLevel;
  /** `text` (one line for people) or `json` (pino's own lines). @defaultValue "text" */
  readonly format?: LogFormat;
  /** Sees every entry as a text line, whatever the format (the status page keeps the recent ones). */
  readonly tap?: (line: string) => void;
  /**
   * The store's passwords (from the URL, `--store-file` or `ROSTER_STORE_PASSWORD`), hidden
   * wherever they appear in a line, raw, URL-encoded or JSON-escaped; the password of any URL in a
   * line is hidden without being listed here.
   */
  readonly secrets?: readonly string[];
  /** `pid` and `hostname` of the lines. @defaultValue this process's */
  readonly base?: LogBase;
  /** The time of an entry. @defaultValue `new Date()` */
  readonly now?: () => Date;
}

/**
 * The fields whose value is a password: censored whole. pino's redact paths name a key at the
 * top level or one level down (`*.password`).
 */
const PASSWORD_KEYS = ['password', 'pass', 'storePassword'];
/** The fields whose value is a URL: its password (`scheme://user:***@host`) is censored, the rest kept. */
const URL_KEYS = ['store', 'url', 'storeUrl', 'target'];

/** pino's `redact` option of the sidecar. */
export const REDACT: { readonly paths: string[]; readonly censor: (value: unknown, path: string[]) => unknown } = {
  paths: [...PASSWORD_KEYS, ...URL_KEYS].flatMap((key) => [key, `*.${key}`]),
  censor: (value, path) => {
    const key = path.at(-1)!;
    if (PASSWORD_KEYS.includes(key)) return '***';
    return typeof value === 'string' ? redactStoreUrl(value) : value;
  },
};

/**
 * A pino logger for the sidecar's stderr. pino builds every line: its JSON (level number, `time`
 * as `isoTime`, `pid`, `hostname`, the fields, `msg` last), its `redact` paths (a `password` field
 * is `***`, a `store`/`url` field keeps its URL without the password), its error serializer
 * (`errWithCause`, for an error in any field), and a shared object is logged whole (only a real
 * cycle is `[Circular]`). Each line then passes the literal scrubber (free text: messages, error
 * messages and stacks, which no redact path reaches) and goes to `sink` synchronously, as is
 * (`json`) or as one text line (`text`, see `formatTextLogLine`).
 */
export function createSidecarPino(sink: LineSink, options: SidecarPinoOptions = {}): Pino {
  const scrubber = new SecretScrubber(options.secrets ?? []);
  const now = options.now ?? (() => new Date());
  return pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? { pid: process.pid, hostname: hostname() },
      timestamp: () => `,"time":"${now().toISOString()}"`,
      redact: REDACT,
      // Every field is made loggable below, errors included; pino's own `err` serializer would see
      // an already serialized error as an error-like object and serialize it again.
      serializers: { err: (value: unknown) => value },
      formatters: { log: loggableFields },
      hooks: { streamWrite: (line) => scrubber.scrub(line) },
    },
    lineStream(sink, options.format ?? 'text', options.tap),
  );
}

/** pino's destination: writes each JSON line, or its text form, to `sink` at once. */
function lineStream(sink: LineSink, format: LogFormat, tap: ((line: string) => void) | undefined): DestinationStream {
  return {
    write(line: string): void {
      if (format === 'json' && !tap) {
        sink.write(line);
        return;
      }
      const text = asText(line);
      tap?.(text);
      sink.write(format === 'json' ? line : `${text}\n`);
    },
  };
}

function asText(line: string): string {
  try {
    return formatTextLogLine(JSON.parse(line) as Record<string, unknown>);
  } catch {
    return line.trimEnd(); // not expected: pino writes JSON, and the scrubber keeps it JSON
  }
}

let stderrDestination: LineSink | undefined;

/**
 * Where the sidecar's lines go: for the real process, fd 2 through pino's synchronous destination
 * (`pino.destination({ dest: 2, sync: true })`, a blocking write on every platform, so that the
 * last line before `process.exit` or a SIGKILL is out); otherwise (a test's buffer) `stderr` itself.
 */
export function stderrSink(stderr: OutputStream): LineSink {
  if (stderr !== process.stderr) return stderr;
  stderrDestination ??= pino.destination({ dest: 2, sync: true });
  return stderrDestination;
}

/**
 * pino's `formatters.log`: the entry's fields without the reserved keys, each error serialized as
 * pino's `errWithCause` does (`type`, `message`, `stack`, its `code` and other own fields, and
 * `cause` serialized the same way) and each bigint a string, in any field and at any depth. Objects
 * holding neither are passed on as they are; one seen twice is logged twice (only a real cycle,
 * an object inside itself, becomes `"[Circular]"`).
 */
export function loggableFields(fields: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!RESERVED_KEYS.has(key)) out[key] = loggable(value, []);
  }
  return out;
}

/** How deep {@link loggable} looks into objects; below, they are left to pino's stringify. */
const MAX_DEPTH = 10;

function loggable(value: unknown, ancestors: object[]): unknown {
  if (typeof value === 'bigint') return String(value);
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.includes(value)) return '[Circular]';
  if (ancestors.length >= MAX_DEPTH) return value;
  if (value instanceof Error) {
    // Its own string keys: not pino's hidden `raw` reference to the error itself.
    const serialized: Record<string, unknown> = Object.fromEntries(Object.entries(pino.stdSerializers.errWithCause(value)));
    // A cause that is no error (`new Error(m, { cause: 'x' })`) is not enumerable: pino would drop it.
    if (serialized.cause === undefined && value.cause !== undefined) serialized.cause = value.cause;
    return loggable(serialized, [...ancestors, value]);
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const inner = [...ancestors, value];
  if (Array.isArray(value)) {
    const items = value.map((item) => loggable(item, inner));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const mapped = loggable(item, inner);
    if (mapped !== item) copy ??= { ...value };
    if (copy) copy[key] = mapped;
  }
  return copy ?? value;
}

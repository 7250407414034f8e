import { flag, type Flag } from './flags.js';
import { LOG_FORMATS, type LogFormat } from './logFormat.js';
import { STORE_URL_ENV } from './storeSource.js';

/**
 * The flags several commands share, declared once. A command puts them in its table under its own
 * keys (`store: storeFlag()`), and may override what differs (`{ ...timeoutFlag(…), help: … }`).
 */

/** `--store URL`, with `ROSTER_STORE_URL` (which yields to `--store-file`: see `resolveStoreUrl`). */
export function storeFlag(): Flag<string | undefined> {
  return flag.string('store', {
    placeholder: 'URL',
    env: STORE_URL_ENV,
    help: 'where the store is: a URL of one of the forms below',
    docs: '([forms](#store-urls); [where it comes from](#where-the-store-url-comes-from))',
  });
}

/** `--store-file PATH`. */
export function storeFileFlag(): Flag<string | undefined> {
  return flag.string('store-file', { placeholder: 'PATH', help: 'read the store URL from the file PATH (trimmed), e.g. a mounted secret' });
}

/** `--group GROUP`: the group, the first part of every key's namespace. */
export function groupFlag(example: string): Flag<string> {
  return flag.string('group', { placeholder: 'GROUP', help: 'the group: the nodes that elect one leader among them, e.g. the application name', required: { example } });
}

/** `--env ENV`. */
export function envFlag(): Flag<string> {
  return flag.string('env', {
    placeholder: 'ENV',
    help: 'the environment, e.g. production; groups of different ones never meet',
    required: { example: 'production' },
  });
}

/** `--interval MS`, with its default. */
export function intervalFlag(help: string, defaultValue: number): Flag<number> {
  return flag.integer('interval', { placeholder: 'MS', unit: 'milliseconds', help, defaultValue, fields: ['intervalMs'] });
}

/** `--timeout MS`; `defaultText` when it has a default the library derives. */
export function timeoutFlag(help: string, defaultText: string): Flag<number | undefined> {
  return flag.integer('timeout', { placeholder: 'MS', unit: 'milliseconds', help, defaultText, fields: ['timeoutMs'] });
}

/** `--connect-timeout MS`. */
export function connectTimeoutFlag(help = 'how long to wait for the store at start'): Flag<number | undefined> {
  return flag.integer('connect-timeout', { placeholder: 'MS', unit: 'milliseconds', help, defaultText: '5000', fields: ['connectTimeoutMs'] });
}

/** `--json`. */
export function jsonFlag(help = 'print one JSON object per line on stdout and nothing else (the format is a public contract: docs/cli.md)'): Flag<boolean> {
  return flag.boolean('json', { help });
}

/** `--verbose`. */
export function verboseFlag(help = 'debug logs on stderr'): Flag<boolean> {
  return flag.boolean('verbose', { help });
}

/** `--log-format FORMAT`. */
export function logFormatFlag(): Flag<LogFormat> {
  return flag.choice('log-format', {
    placeholder: 'FORMAT',
    choices: LOG_FORMATS,
    defaultValue: 'text',
    help: 'the logs on stderr: text (one line for people) or json (one pino-compatible object per line, docs/cli.md)',
    docs: '([below](#logs))',
  });
}

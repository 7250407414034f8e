import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { CliError } from '../CliError.js';
import { flag, wrap, type Flag } from './flags.js';
import { TLS_FORMS } from './storeForms.js';

/** The TLS flags of a store command, by key; see {@link tlsFlags}. */
export interface TlsFlags {
  readonly tlsCa: Flag<string | undefined>;
  readonly tlsCert: Flag<string | undefined>;
  readonly tlsKey: Flag<string | undefined>;
  readonly tlsServerName: Flag<string | undefined>;
}

/**
 * The TLS flags every store command takes, each with its environment variable; `storeFlag` is the
 * command's own flag for the store URL (`--store`, or `-r` for cluster-test).
 */
export function tlsFlags(storeFlag: string): TlsFlags {
  return {
    tlsCa: flag.string('tls-ca', { placeholder: 'FILE', env: 'ROSTER_TLS_CA', help: 'trust the CA certificates in FILE (PEM) instead of the system\'s' }),
    tlsCert: flag.string('tls-cert', { placeholder: 'FILE', env: 'ROSTER_TLS_CERT', help: 'a client certificate (PEM) for mutual TLS, given with --tls-key' }),
    tlsKey: flag.string('tls-key', { placeholder: 'FILE', env: 'ROSTER_TLS_KEY', help: 'its private key (PEM)' }),
    tlsServerName: flag.string('tls-server-name', {
      placeholder: 'NAME',
      env: 'ROSTER_TLS_SERVER_NAME',
      help: 'the name the server certificate must carry',
      defaultText: `the host of ${storeFlag}`,
    }),
  };
}

/** The keys of the TLS flags, in the order help lists them. */
export const TLS_KEYS = ['tlsCa', 'tlsCert', 'tlsKey', 'tlsServerName'] as const;

/** One of {@link TLS_KEYS}. */
export type TlsKey = (typeof TLS_KEYS)[number];

/** What {@link tlsOptions} reads of a command's parsed flags (any table with {@link tlsFlags}). */
export interface TlsInput {
  readonly command: string;
  readonly values: { readonly [K in TlsKey]: string | undefined };
  /** The flag or variable a value came under. */
  label(key: TlsKey): string;
  /** The flag as the user writes it. */
  name(key: TlsKey): string;
}

/** `a, b and c`. */
function list(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

/**
 * The heading of the TLS flags in `--help`: every store form that asks for TLS (from the list of
 * store URL forms), and what the flags do with another.
 */
export function tlsHeading(): string {
  const text = `TLS, for ${list(TLS_FORMS)} stores (with another store URL, any of these flags turns TLS on; a flag wins over its environment variable):`;
  return wrap(text, 98).join('\n');
}

/** The same for docs/cli.md (Markdown). */
export function tlsDocs(): string {
  return `The TLS flags are for ${list(TLS_FORMS.map((f) => `\`${f}\``))} stores; with another store URL, any of them turns TLS on. A flag wins over its environment variable.`;
}

/**
 * The Node.js TLS options for the store from the TLS flags (or their environment variables), with
 * the files read; `undefined` when none is given (a TLS URL then uses the system's CAs).
 *
 * @throws {@link CliError} when a file cannot be read, or only one of `--tls-cert` and `--tls-key`
 *   is given. The message names the flag (or the variable) and the path, never the file's content.
 */
export function tlsOptions(parsed: TlsInput): ConnectionOptions | undefined {
  const { values, command } = parsed;
  if (TLS_KEYS.every((key) => values[key] === undefined || values[key] === '')) return undefined;
  const given = (key: TlsKey): boolean => values[key] !== undefined && values[key] !== '';
  if (given('tlsCert') !== given('tlsKey')) {
    throw new CliError(`${command}: ${parsed.name('tlsCert')} and ${parsed.name('tlsKey')} go together (a client certificate needs its key)`);
  }
  const read = (key: 'tlsCa' | 'tlsCert' | 'tlsKey'): string | undefined => {
    const path = values[key];
    if (path === undefined || path === '') return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch (error) {
      const reason = (error as { code?: string }).code ?? 'unreadable';
      throw new CliError(`${command}: cannot read ${parsed.label(key)} ${JSON.stringify(path)} (${reason})`, { cause: error });
    }
  };
  const ca = read('tlsCa');
  const cert = read('tlsCert');
  const key = read('tlsKey');
  const servername = given('tlsServerName') ? values.tlsServerName : undefined;
  return {
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(servername !== undefined && { servername }),
  };
}

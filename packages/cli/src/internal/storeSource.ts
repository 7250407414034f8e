import { readFileSync } from 'node:fs';
import { CliError } from '../CliError.js';

/** The environment variable that gives the store URL when no flag does. */
export const STORE_URL_ENV = 'ROSTER_STORE_URL';
/** The environment variable that gives the store password for a URL without one. */
export const STORE_PASSWORD_ENV = 'ROSTER_STORE_PASSWORD';

/** Where the store URL came from. */
export type StoreUrlSource = 'flag' | 'file' | 'env';

/** What {@link resolveStoreUrl} found. */
export interface ResolvedStoreUrl {
  /** The URL to connect to, with `ROSTER_STORE_PASSWORD` put in when the URL had no password. */
  readonly url: string;
  /** Where it came from, named for people: `--store`, `--store-file`, `ROSTER_STORE_URL`. */
  readonly from: string;
  /** The passwords it carries (for the logs to hide). */
  readonly secrets: readonly string[];
}

/** The values a command was given for its store, and the names of its flags. */
export interface StoreUrlInput {
  /** The URL flag's value (`--store URL`, `-r URI`). */
  readonly url?: string | undefined;
  /** The file flag's value (`--store-file PATH`). */
  readonly file?: string | undefined;
  /** The URL flag's name in messages. @defaultValue "--store" */
  readonly flag?: string;
}

/**
 * The store URL of a command: from the URL flag, else from the file named by `--store-file` (its
 * content, trimmed: a mounted secret), else from `ROSTER_STORE_URL`; `undefined` when none is
 * given. When the URL has no password and `ROSTER_STORE_PASSWORD` is set, that password is put
 * into it (URL-encoded, in the first entry). Neither the file's content nor a password ever
 * appears in an error.
 *
 * @throws {@link CliError} when the file cannot be read, is empty or holds more than one line.
 */
export function resolveStoreUrl(command: string, input: StoreUrlInput, env: Readonly<Record<string, string | undefined>>): ResolvedStoreUrl | undefined {
  const flag = input.flag ?? '--store';
  let found: { url: string; from: string } | undefined;
  if (input.url !== undefined && input.url.trim() !== '') found = { url: input.url.trim(), from: flag };
  else if (input.file !== undefined) found = { url: readUrlFile(command, input.file), from: '--store-file' };
  else if (env[STORE_URL_ENV] !== undefined && env[STORE_URL_ENV].trim() !== '') found = { url: env[STORE_URL_ENV].trim(), from: STORE_URL_ENV };
  if (found === undefined) return undefined;
  const secrets = urlPasswords(found.url);
  const password = env[STORE_PASSWORD_ENV];
  if (secrets.length > 0 || password === undefined || password === '') return { ...found, secrets };
  return { url: withPassword(found.url, password), from: found.from, secrets: [password] };
}

/**
 * {@link resolveStoreUrl}, for a command that cannot run without a store.
 *
 * @throws {@link CliError} naming the three ways to give it when none is given.
 */
export function requireStoreUrl(command: string, input: StoreUrlInput, env: Readonly<Record<string, string | undefined>>, example = 'redis://127.0.0.1:6379'): ResolvedStoreUrl {
  const found = resolveStoreUrl(command, input, env);
  const flag = input.flag ?? '--store';
  if (found === undefined) throw new CliError(`${command}: missing ${flag} (or --store-file PATH, or ${STORE_URL_ENV} in the environment; e.g. ${flag} ${example})`);
  return found;
}

function readUrlFile(command: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const reason = (error as { code?: string }).code ?? 'unreadable';
    throw new CliError(`${command}: cannot read --store-file ${JSON.stringify(path)} (${reason})`, { cause: error });
  }
  const url = text.trim();
  if (url === '') throw new CliError(`${command}: --store-file ${JSON.stringify(path)} is empty (expected the store URL)`);
  if (/[\r\n]/.test(url)) throw new CliError(`${command}: --store-file ${JSON.stringify(path)} holds more than one line (expected the store URL alone)`);
  return url;
}

/**
 * Every password written in `url`: in each comma-separated entry with a scheme, what lies between
 * the first `:` after `scheme://` and the entry's last `@` (decoded too, when it was URL-encoded).
 */
export function urlPasswords(url: string): string[] {
  const found: string[] = [];
  for (const entry of url.split(',')) {
    const scheme = entry.indexOf('://');
    const at = entry.lastIndexOf('@');
    if (scheme < 0 || at < scheme) continue;
    const userinfo = entry.slice(scheme + 3, at);
    const colon = userinfo.indexOf(':');
    if (colon < 0) continue;
    const password = userinfo.slice(colon + 1);
    if (password === '') continue;
    found.push(password);
    try {
      const decoded = decodeURIComponent(password);
      if (decoded !== password) found.push(decoded);
    } catch {
      // Not URL-encoded: the raw form is enough.
    }
  }
  return found;
}

/**
 * `url` with `password` (URL-encoded) in the user info of its first entry: `redis://host` becomes
 * `redis://:PASS@host`, `redis://user@host` becomes `redis://user:PASS@host`, and a bare
 * `host:port[,…]` becomes `redis://:PASS@host:port[,…]` (a Redis Cluster's credentials may sit on
 * one entry).
 */
export function withPassword(url: string, password: string): string {
  const encoded = encodeURIComponent(password);
  const comma = url.indexOf(',');
  const first = comma < 0 ? url : url.slice(0, comma);
  const rest = comma < 0 ? '' : url.slice(comma);
  const scheme = first.indexOf('://');
  if (scheme < 0) return `redis://:${encoded}@${first}${rest}`;
  const head = first.slice(0, scheme + 3);
  const tail = first.slice(scheme + 3);
  const slash = tail.indexOf('/');
  const authority = slash < 0 ? tail : tail.slice(0, slash);
  const path = slash < 0 ? '' : tail.slice(slash);
  const at = authority.lastIndexOf('@');
  const user = at < 0 ? '' : authority.slice(0, at);
  const host = at < 0 ? authority : authority.slice(at + 1);
  return `${head}${user}:${encoded}@${host}${path}${rest}`;
}

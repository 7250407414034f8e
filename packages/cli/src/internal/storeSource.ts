import { readFileSync } from 'node:fs';
import { checkStoreUrl, ConfigError } from '@roster/kv-adapter';
import { CliError } from '../CliError.js';
import type { Env, ValueSource } from './flags.js';
import { problem, untagged } from './problems.js';

/** The environment variable that gives the store URL when no flag does. */
export const STORE_URL_ENV = 'ROSTER_STORE_URL';
/** The environment variable that gives the store password for a URL without one. */
export const STORE_PASSWORD_ENV = 'ROSTER_STORE_PASSWORD';

/** What {@link resolveStoreUrl} found: the URL, and the only form of it that goes into any text. */
export interface ResolvedStoreUrl {
  /** The URL to connect to, with `ROSTER_STORE_PASSWORD` put in when the URL had no password. */
  readonly url: string;
  /** The URL with every password replaced by `***`: what logs, messages and the status page show. */
  readonly display: string;
  /** The backend the URL selects (`redis`, `postgres`, …). */
  readonly backend: string;
  /** Where it came from, for the start log line: `--store` (or `-r`), `--store-file`, `ROSTER_STORE_URL`. */
  readonly from: string;
  /** Where it came from, for messages: `--store`, `--store-file "/run/secrets/store"`, `ROSTER_STORE_URL`. */
  readonly where: string;
  /** The passwords it carries, which the logs hide wherever they appear. */
  readonly secrets: readonly string[];
}

/** What a command was given for its store. */
export interface StoreUrlInput {
  /** The store flag's value (`--store URL`, `-r URL`), or `ROSTER_STORE_URL`'s (see `source`). */
  readonly url?: string | undefined;
  /** Where `url` came from: the flag or the environment. @defaultValue the flag */
  readonly source?: ValueSource;
  /** The file flag's value (`--store-file PATH`). */
  readonly file?: string | undefined;
  /** The store flag's name in messages. @defaultValue "--store" */
  readonly flag?: string;
}

/**
 * The store URL of a command: from the store flag, else from the file named by `--store-file` (its
 * content, trimmed: a mounted secret), else from `ROSTER_STORE_URL` (which the flag table reads
 * into `input.url` with `source` env); `undefined` when none is given. When the URL has no password
 * and `ROSTER_STORE_PASSWORD` is set, that password is put into it (URL-encoded, in the first
 * entry). The URL is then checked (`checkStoreUrl`), and redacted once into its display form.
 * Neither the file's content nor a password ever appears in an error.
 *
 * @throws {@link CliError} when the file cannot be read, is empty or holds more than one line, or
 *   the URL is invalid: `roster node: invalid store URL (from ROSTER_STORE_URL): Expected …`.
 */
export function resolveStoreUrl(command: string, input: StoreUrlInput, env: Env): ResolvedStoreUrl | undefined {
  const flag = input.flag ?? '--store';
  const fromEnv = input.source?.kind === 'env';
  const url = input.url?.trim() === '' ? undefined : input.url?.trim();
  let found: { url: string; from: string; where: string } | undefined;
  if (url !== undefined && !fromEnv) found = { url, from: flag, where: flag };
  else if (input.file !== undefined) found = { url: readUrlFile(command, input.file), from: '--store-file', where: `--store-file ${JSON.stringify(input.file)}` };
  else if (url !== undefined) found = { url, from: STORE_URL_ENV, where: STORE_URL_ENV };
  if (found === undefined) return undefined;
  const own = urlPasswords(found.url);
  const password = env[STORE_PASSWORD_ENV];
  const withEnvPassword = own.length === 0 && password !== undefined && password !== '';
  const full = withEnvPassword ? withPassword(found.url, password) : found.url;
  const secrets = withEnvPassword ? [password] : own;
  let checked: { backend: string; redacted: string };
  try {
    checked = checkStoreUrl(full);
  } catch (error) {
    if (!ConfigError.is(error)) throw error;
    throw problem(command, 'invalid store URL', { where: `from ${found.where}`, detail: untagged(error, 'config: '), cause: error });
  }
  return { url: full, display: checked.redacted, backend: checked.backend, from: found.from, where: found.where, secrets };
}

/**
 * {@link resolveStoreUrl}, for a command that cannot run without a store.
 *
 * @throws {@link CliError} naming the three ways to give it when none is given.
 */
export function requireStoreUrl(command: string, input: StoreUrlInput, env: Env, example = 'redis://127.0.0.1:6379'): ResolvedStoreUrl {
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

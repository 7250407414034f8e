import { ConfigError } from '../errors.js';
import { redactStoreUrl } from '../backend/redactStoreUrl.js';

/** The TLS modes of a `postgres://` URL's `sslmode` (libpq's names). */
export type PostgresSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

const SSL_MODES: readonly PostgresSslMode[] = ['disable', 'require', 'verify-ca', 'verify-full'];

/** What {@link parsePostgresUrl} returns. */
export interface ParsedPostgresUrl {
  /** The server's host name or address (IPv6 without its brackets). */
  readonly host: string;
  /** @defaultValue 5432 */
  readonly port: number;
  /** The database. @defaultValue the user name, as libpq does */
  readonly database: string;
  /** The role to log in as (URL-decoded). */
  readonly user: string;
  /** Its password (URL-decoded), when the URL gives one. */
  readonly password?: string;
  /** `?sslmode=`. @defaultValue 'disable' */
  readonly sslmode: PostgresSslMode;
  /** `?table=`: the table PostgresKV keeps its keys in. */
  readonly table?: string;
  /** `?application_name=`, shown in `pg_stat_activity`. */
  readonly applicationName?: string;
}

const DEFAULT_PORT = 5432;
const PARAMS = new Set(['sslmode', 'table', 'application_name']);

/**
 * Parses `postgres://USER[:PASS]@HOST[:PORT]/DB[?sslmode=…&table=…&application_name=…]` (also
 * `postgresql://`). User and password are URL-encoded; the port defaults to 5432 and the database to
 * the user name. A password in the query string is refused (it would show in logs).
 *
 * @throws {@link ConfigError} with field `store`; its `value` is the URL with the password redacted.
 */
export function parsePostgresUrl(url: string): ParsedPostgresUrl {
  const shown = redactStoreUrl(url);
  const fail = (message: string): never => {
    throw new ConfigError('store', shown, message);
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('Expected a PostgreSQL URL such as `postgres://user:pass@host:5432/db`');
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') fail('Expected the scheme `postgres://` or `postgresql://`');
  if (url.includes(',')) fail('Expected one PostgreSQL host: a list of hosts is not supported');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') fail('Expected a host in the PostgreSQL URL');
  const port = parsed.port === '' ? DEFAULT_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail('Expected a port from 1 to 65535');
  if (parsed.hash !== '') fail('Expected no fragment in the PostgreSQL URL');
  const user = decode(parsed.username, fail);
  if (user === '') fail('Expected a user name in the PostgreSQL URL (`postgres://USER[:PASS]@HOST:PORT/DB`)');
  const path = decode(parsed.pathname.replace(/^\//, ''), fail);
  if (path.includes('/')) fail('Expected the path to be a database name');
  for (const name of parsed.searchParams.keys()) {
    if (!PARAMS.has(name)) fail(`Expected only the parameters ${[...PARAMS].map((p) => `\`${p}\``).join(', ')}, found \`${name.slice(0, 40)}\``);
  }
  const sslmode = parsed.searchParams.get('sslmode') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(sslmode)) fail(`Expected \`sslmode\` to be one of ${SSL_MODES.join(', ')}`);
  const table = parsed.searchParams.get('table') ?? undefined;
  const applicationName = parsed.searchParams.get('application_name') ?? undefined;
  const password = parsed.password === '' ? undefined : decode(parsed.password, fail);
  return {
    host,
    port,
    database: path === '' ? user : path,
    user,
    sslmode: sslmode as PostgresSslMode,
    ...(password !== undefined && { password }),
    ...(table !== undefined && { table }),
    ...(applicationName !== undefined && { applicationName }),
  };
}

function decode(text: string, fail: (message: string) => never): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return fail('Expected the user, password and database in the PostgreSQL URL to be URL-encoded');
  }
}

import { ConfigError } from '../errors.js';
import { redactStoreUrl } from '../backend/redactStoreUrl.js';

/**
 * The TLS modes of a `mysql://` URL's `?ssl=`: `disable` (no TLS), `require` (TLS, the certificate
 * not verified), `verify-ca` (the chain verified), `verify-full` (the chain and the host name);
 * MySQL's `--ssl-mode` DISABLED, REQUIRED, VERIFY_CA and VERIFY_IDENTITY.
 */
export type MySQLSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

const SSL_MODES: readonly MySQLSslMode[] = ['disable', 'require', 'verify-ca', 'verify-full'];

/** What {@link parseMySQLUrl} returns. */
export interface ParsedMySQLUrl {
  /** The server's host name or address (IPv6 without its brackets). */
  readonly host: string;
  /** @defaultValue 3306 */
  readonly port: number;
  /** The database (MySQL's schema) the table is in. */
  readonly database: string;
  /** The user to log in as (URL-decoded). */
  readonly user: string;
  /** Its password (URL-decoded), when the URL gives one. */
  readonly password?: string;
  /** `?ssl=`. @defaultValue 'disable' */
  readonly ssl: MySQLSslMode;
  /** `?table=`: the table MySQLKV keeps its keys in. */
  readonly table?: string;
}

const DEFAULT_PORT = 3306;
const PARAMS = new Set(['ssl', 'table']);

/**
 * Parses `mysql://USER[:PASS]@HOST[:PORT]/DB[?ssl=…&table=…]` (also `mariadb://`). User, password
 * and database are URL-encoded; the port defaults to 3306. The database is required (MySQL has no
 * default one). A password in the query string is refused (it would show in logs).
 *
 * @throws {@link ConfigError} with field `store`; its `value` is the URL with the password redacted.
 *
 * @example
 * ```ts
 * parseMySQLUrl('mysql://roster:s3cret@db.internal/app?ssl=verify-full');
 * // { host: 'db.internal', port: 3306, database: 'app', user: 'roster', password: 's3cret', ssl: 'verify-full' }
 * ```
 */
export function parseMySQLUrl(url: string): ParsedMySQLUrl {
  const shown = redactStoreUrl(url);
  const fail = (message: string): never => {
    throw new ConfigError('store', shown, message);
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('Expected a MySQL URL such as `mysql://user:pass@host:3306/db`');
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'mysql' && scheme !== 'mariadb') fail('Expected the scheme `mysql://` or `mariadb://`');
  if (url.includes(',')) fail('Expected one MySQL host: a list of hosts is not supported');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') fail('Expected a host in the MySQL URL');
  const port = parsed.port === '' ? DEFAULT_PORT : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail('Expected a port from 1 to 65535');
  if (parsed.hash !== '') fail('Expected no fragment in the MySQL URL');
  const user = decode(parsed.username, fail);
  if (user === '') fail('Expected a user name in the MySQL URL (`mysql://USER[:PASS]@HOST:PORT/DB`)');
  const database = decode(parsed.pathname.replace(/^\//, ''), fail);
  if (database === '') fail('Expected a database in the MySQL URL (`mysql://USER[:PASS]@HOST:PORT/DB`)');
  if (database.includes('/')) fail('Expected the path to be a database name');
  for (const name of parsed.searchParams.keys()) {
    if (!PARAMS.has(name)) fail(`Expected only the parameters ${[...PARAMS].map((p) => `\`${p}\``).join(', ')}, found \`${name.slice(0, 40)}\``);
  }
  const ssl = parsed.searchParams.get('ssl') ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(ssl)) fail(`Expected \`ssl\` to be one of ${SSL_MODES.join(', ')}`);
  const table = parsed.searchParams.get('table') ?? undefined;
  const password = parsed.password === '' ? undefined : decode(parsed.password, fail);
  return {
    host,
    port,
    database,
    user,
    ssl: ssl as MySQLSslMode,
    ...(password !== undefined && { password }),
    ...(table !== undefined && { table }),
  };
}

function decode(text: string, fail: (message: string) => never): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return fail('Expected the user, password and database in the MySQL URL to be URL-encoded');
  }
}

import { parseDatabaseUrl, type DatabaseUrlForm } from '../backend/databaseSettings.js';

/**
 * The TLS modes of a `mysql://` URL's `?ssl=`: `disable` (no TLS), `require` (TLS, the certificate
 * not verified), `verify-ca` (the chain verified), `verify-full` (the chain and the host name);
 * MySQL's `--ssl-mode` DISABLED, REQUIRED, VERIFY_CA and VERIFY_IDENTITY.
 */
export type MySQLSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

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

const FORM: DatabaseUrlForm = {
  name: 'MySQL',
  schemes: ['mysql', 'mariadb'],
  defaultPort: 3306,
  databaseRequired: true,
  params: new Set(['ssl', 'table']),
  sslParam: 'ssl',
};

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
  const { host, port, database, user, password, ssl, params } = parseDatabaseUrl(url, FORM);
  const table = params.get('table') ?? undefined;
  return {
    host,
    port,
    database,
    user,
    ssl,
    ...(password !== undefined && { password }),
    ...(table !== undefined && { table }),
  };
}

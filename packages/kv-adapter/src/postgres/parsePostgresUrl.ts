import { parseDatabaseUrl, type DatabaseUrlForm } from '../backend/databaseSettings.js';

/** The TLS modes of a `postgres://` URL's `sslmode` (libpq's names). */
export type PostgresSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

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

const FORM: DatabaseUrlForm = {
  name: 'PostgreSQL',
  schemes: ['postgres', 'postgresql'],
  defaultPort: 5432,
  databaseRequired: false,
  params: new Set(['sslmode', 'table', 'application_name']),
  sslParam: 'sslmode',
};

/**
 * Parses `postgres://USER[:PASS]@HOST[:PORT]/DB[?sslmode=…&table=…&application_name=…]` (also
 * `postgresql://`). User and password are URL-encoded; the port defaults to 5432 and the database to
 * the user name. A password in the query string is refused (it would show in logs).
 *
 * @throws {@link ConfigError} with field `store`; its `value` is the URL with the password redacted.
 */
export function parsePostgresUrl(url: string): ParsedPostgresUrl {
  const { host, port, database, user, password, ssl, params } = parseDatabaseUrl(url, FORM);
  const table = params.get('table') ?? undefined;
  const applicationName = params.get('application_name') ?? undefined;
  return {
    host,
    port,
    database: database === '' ? user : database,
    user,
    sslmode: ssl,
    ...(password !== undefined && { password }),
    ...(table !== undefined && { table }),
    ...(applicationName !== undefined && { applicationName }),
  };
}

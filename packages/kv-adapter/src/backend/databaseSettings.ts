/**
 * What the database backends (PostgresKV, MySQLKV) share in reading their options: the URL's
 * checks, in one order and one wording, the TLS its mode and the `tls` option ask for, the pool
 * size and the table.
 */
import { ConfigError } from '../errors.js';
import type { Limits } from '../validate.js';
import { resolveBackendOptions, type BackendOptions, type BackendSettings } from './backendOptions.js';
import { redactStoreUrl } from './redactStoreUrl.js';

/**
 * The TLS modes of a database URL (libpq's `sslmode` names): `disable` (no TLS), `require` (TLS,
 * the certificate not verified), `verify-ca` (the chain verified), `verify-full` (the chain and
 * the host name).
 */
export type DatabaseSslMode = 'disable' | 'require' | 'verify-ca' | 'verify-full';

const SSL_MODES: readonly DatabaseSslMode[] = ['disable', 'require', 'verify-ca', 'verify-full'];

/** How one database's URLs are written, for {@link parseDatabaseUrl}. */
export interface DatabaseUrlForm {
  /** The database's name in messages: `MySQL`, `PostgreSQL`. */
  readonly name: string;
  /** The two schemes accepted, the usual one first (`['mysql', 'mariadb']`). */
  readonly schemes: readonly [string, string];
  readonly defaultPort: number;
  /** Whether the path (the database) must be given. */
  readonly databaseRequired: boolean;
  /** The query parameters accepted. */
  readonly params: ReadonlySet<string>;
  /** The parameter of the TLS mode (`ssl`, `sslmode`). */
  readonly sslParam: string;
}

/** What {@link parseDatabaseUrl} returns. */
export interface ParsedDatabaseUrl {
  /** The host name or address (IPv6 without its brackets). */
  readonly host: string;
  readonly port: number;
  /** The user name (URL-decoded). */
  readonly user: string;
  /** The path without its `/` (URL-decoded): the database, `""` when none is given. */
  readonly database: string;
  /** The password (URL-decoded), when the URL gives one. */
  readonly password?: string;
  /** The TLS mode. @defaultValue 'disable' */
  readonly ssl: DatabaseSslMode;
  /** The query parameters, every one of them in {@link DatabaseUrlForm.params}. */
  readonly params: URLSearchParams;
}

/**
 * Parses a one-host database URL, `SCHEME://USER[:PASS]@HOST[:PORT]/DB[?…]`, as `form` says: the
 * checks PostgreSQL's and MySQL's URLs share, in one order, with one wording.
 *
 * @throws {@link ConfigError} with field `store`; its `value` is the URL with the password redacted.
 */
export function parseDatabaseUrl(url: string, form: DatabaseUrlForm): ParsedDatabaseUrl {
  const { name, schemes, defaultPort } = form;
  const shown = redactStoreUrl(url);
  const fail = (message: string): never => {
    throw new ConfigError('store', shown, message);
  };
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      return fail(`Expected the user, password and database in the ${name} URL to be URL-encoded`);
    }
  };
  const shape = `\`${schemes[0]}://USER[:PASS]@HOST:PORT/DB\``;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail(`Expected a ${name} URL such as \`${schemes[0]}://user:pass@host:${defaultPort}/db\``);
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (!schemes.includes(scheme)) fail(`Expected the scheme \`${schemes[0]}://\` or \`${schemes[1]}://\``);
  if (url.includes(',')) fail(`Expected one ${name} host: a list of hosts is not supported`);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') fail(`Expected a host in the ${name} URL`);
  const port = parsed.port === '' ? defaultPort : Number(parsed.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail('Expected a port from 1 to 65535');
  if (parsed.hash !== '') fail(`Expected no fragment in the ${name} URL`);
  const user = decode(parsed.username);
  if (user === '') fail(`Expected a user name in the ${name} URL (${shape})`);
  const database = decode(parsed.pathname.replace(/^\//, ''));
  if (form.databaseRequired && database === '') fail(`Expected a database in the ${name} URL (${shape})`);
  if (database.includes('/')) fail('Expected the path to be a database name');
  for (const param of parsed.searchParams.keys()) {
    if (!form.params.has(param)) fail(`Expected only the parameters ${[...form.params].map((p) => `\`${p}\``).join(', ')}, found \`${param.slice(0, 40)}\``);
  }
  const ssl = parsed.searchParams.get(form.sslParam) ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(ssl)) fail(`Expected \`${form.sslParam}\` to be one of ${SSL_MODES.join(', ')}`);
  const password = parsed.password === '' ? undefined : decode(parsed.password);
  return { host, port, user, database, ssl: ssl as DatabaseSslMode, params: parsed.searchParams, ...(password !== undefined && { password }) };
}

/**
 * The TLS a URL's mode and a backend's `tls` option ask for together: `tls: false` is none, `tls`
 * options (a CA, a client certificate) apply on top of the mode, and `tls` alone (mode `disable`)
 * means `verify-full`. `undefined`: no TLS.
 */
export function effectiveTls<T extends object>(mode: DatabaseSslMode, tls: boolean | T | undefined): { mode: Exclude<DatabaseSslMode, 'disable'>; extra: T | Record<string, never> } | undefined {
  if (tls === false) return undefined;
  const extra = typeof tls === 'object' && tls !== null ? tls : {};
  const effective = mode === 'disable' && tls !== undefined ? 'verify-full' : mode;
  return effective === 'disable' ? undefined : { mode: effective, extra };
}

/** How long after the server's own bound of a statement the client gives up on a silent server. */
export const CLIENT_TIMEOUT_MARGIN_MS = 250;

/** What every database backend's resolved settings hold, beside its driver's configuration. */
export interface DatabaseSettings extends BackendSettings {
  /** The table the keys are kept in. */
  readonly table: string;
  /** The URL with its password redacted, for messages. */
  readonly target: string;
}

/** How one database backend's options are read, for {@link resolveDatabaseOptions}. */
export interface DatabaseOptionsForm<P extends { readonly table?: string; readonly password?: string }> {
  /** The URL scheme, for the message of a `url` that is not a string: `mysql`. */
  readonly scheme: string;
  /** Parses the URL (field `store` in its errors). */
  readonly parse: (url: string) => P;
  /** Checks the limits the database can hold, once the URL is read. */
  readonly checkLimits?: (limits: Limits) => void;
  readonly defaultPoolSize: number;
  /** The table names accepted. */
  readonly tableName: RegExp;
  /** What may qualify a table name: `database` (MySQL), `schema` (PostgreSQL). */
  readonly tableQualifier: string;
  /** The table when neither the option nor the URL names one. */
  readonly defaultTable: string;
}

/** The options of a database backend, validated: what {@link resolveDatabaseOptions} returns. */
export interface ResolvedDatabaseOptions<P> extends DatabaseSettings {
  /** The URL, parsed. */
  readonly parsed: P;
  readonly poolSize: number;
  /** The `password` option, else the URL's. */
  readonly password: string | undefined;
}

/** The options of a database backend that {@link resolveDatabaseOptions} reads. */
export interface DatabaseOptions extends BackendOptions {
  readonly url: string;
  readonly password?: string;
  readonly table?: string;
  readonly poolSize?: number;
}

/**
 * Validates what the options of a database backend (PostgresKV, MySQLKV) share, once, up front
 * and in this order: the backend options, `url` (a string, then parsed), the limits the database
 * holds, `poolSize` (an integer from 1 to 1000), `table` (the option, else the URL's, else the
 * default); and the password (the option, else the URL's).
 *
 * @throws {@link ConfigError} naming the field and the bad value.
 */
export function resolveDatabaseOptions<P extends { readonly table?: string; readonly password?: string }>(options: DatabaseOptions, form: DatabaseOptionsForm<P>): ResolvedDatabaseOptions<P> {
  const backend = resolveBackendOptions(options);
  if (typeof options.url !== 'string') throw new ConfigError('url', options.url, `Expected \`url\` to be a \`${form.scheme}://\` URL`);
  const parsed = form.parse(options.url);
  form.checkLimits?.(backend.limits);
  const poolSize = options.poolSize ?? form.defaultPoolSize;
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) throw new ConfigError('poolSize', poolSize, 'Expected `poolSize` to be an integer from 1 to 1000');
  const table = options.table ?? parsed.table ?? form.defaultTable;
  if (typeof table !== 'string' || !form.tableName.test(table)) {
    throw new ConfigError('table', table, `Expected \`table\` to be a lower-case SQL identifier (\`[a-z_][a-z0-9_]*\`), optionally \`${form.tableQualifier}.table\``);
  }
  return { ...backend, parsed, poolSize, table, password: options.password ?? parsed.password, target: redactStoreUrl(options.url) };
}

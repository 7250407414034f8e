import type { ConnectionOptions } from 'node:tls';
import type { PoolOptions } from 'mysql2';
import { CLIENT_TIMEOUT_MARGIN_MS, effectiveTls, resolveDatabaseOptions, type DatabaseSettings } from '../backend/databaseSettings.js';
import { ConfigError } from '../errors.js';
import { parseMySQLUrl, type MySQLSslMode } from './parseMySQLUrl.js';
import type { MySQLKVOptions } from './MySQLKV.js';

/** The table MySQLKV uses when neither `table` nor the URL's `?table=` names one. */
export const DEFAULT_TABLE = 'roster_kv';
/** Few connections: a node runs a handful of operations per interval. */
const DEFAULT_POOL_SIZE = 4;
/** The longest key the table's primary key (VARBINARY, InnoDB's 3072-byte index limit) holds. */
export const MAX_KEY_BYTES = 3072;
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,63}(\.[a-z_][a-z0-9_]{0,63})?$/;

/** Resolved {@link MySQLKVOptions}. */
export interface MySQLSettings extends DatabaseSettings {
  /** mysql2's pool options. */
  readonly pool: PoolOptions;
  /** The client's own deadline of one statement (mysql2's `timeout`), a little past the server's. */
  readonly queryTimeoutMs: number;
}

/** Validates `options` once, up front, and builds mysql2's pool configuration. */
export function resolveMySQLSettings(options: MySQLKVOptions): MySQLSettings {
  const { parsed, poolSize, password, ...settings } = resolveDatabaseOptions(options, {
    scheme: 'mysql',
    parse: parseMySQLUrl,
    checkLimits: ({ maxKeyBytes }) => {
      if (maxKeyBytes > MAX_KEY_BYTES) {
        throw new ConfigError('maxKeyBytes', maxKeyBytes, `Expected \`maxKeyBytes\` to be at most ${MAX_KEY_BYTES} on MySQL (the key column's index limit)`);
      }
    },
    defaultPoolSize: DEFAULT_POOL_SIZE,
    tableName: TABLE_NAME,
    tableQualifier: 'database',
    defaultTable: DEFAULT_TABLE,
  });
  const { connectTimeoutMs, commandTimeoutMs } = settings;
  const tls = ssl(parsed.ssl, options.tls);
  const pool: PoolOptions = {
    host: parsed.host,
    port: parsed.port,
    user: parsed.user,
    database: parsed.database,
    ...(password !== undefined && { password }),
    // mysql2's SslOptions type is narrower than what it passes on to `tls.connect`.
    ...(tls !== undefined && { ssl: tls as PoolOptions['ssl'] & object }),
    connectionLimit: poolSize,
    maxIdle: poolSize,
    idleTimeout: 30_000,
    queueLimit: 0,
    // Bounds a new connection (TCP and handshake): a server that accepts but never answers.
    connectTimeout: Math.min(connectTimeoutMs, Math.max(commandTimeoutMs, 1000)),
    enableKeepAlive: true,
    keepAliveInitialDelay: 10_000,
    // take and exchange send their transaction in one round trip; values are escaped by mysql2.
    multipleStatements: true,
    // An UPDATE's affectedRows counts the rows it matched (compare-and-set), not only those it changed.
    flags: ['FOUND_ROWS'],
    charset: 'utf8mb4',
    supportBigNumbers: true,
  };
  return { ...settings, pool, queryTimeoutMs: Math.ceil(commandTimeoutMs) + CLIENT_TIMEOUT_MARGIN_MS };
}

/** mysql2's TLS options (Node's, plus `verifyIdentity`) from `?ssl=` and the `tls` option. */
type MySQLTls = ConnectionOptions & { verifyIdentity?: boolean };

/**
 * mysql2's `ssl` from the URL's `?ssl=` and the `tls` option: `require` encrypts without verifying,
 * `verify-ca` verifies the chain, `verify-full` the chain and the host name; `tls` options (a CA,
 * a client certificate) apply on top, and `tls` alone means `verify-full`.
 */
function ssl(mode: MySQLSslMode, tls: boolean | ConnectionOptions | undefined): MySQLTls | undefined {
  const effective = effectiveTls(mode, tls);
  if (effective === undefined) return undefined;
  const { extra } = effective;
  switch (effective.mode) {
    case 'require':
      return { rejectUnauthorized: false, ...extra };
    case 'verify-ca':
      return { rejectUnauthorized: true, verifyIdentity: false, ...extra };
    case 'verify-full':
      return { rejectUnauthorized: true, verifyIdentity: true, ...extra };
  }
}

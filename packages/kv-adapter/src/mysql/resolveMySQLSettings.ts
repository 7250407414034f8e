import type { ConnectionOptions } from 'node:tls';
import type { PoolOptions } from 'mysql2';
import { resolveBackendOptions, type BackendSettings } from '../backend/backendOptions.js';
import { ConfigError } from '../errors.js';
import { redactStoreUrl } from '../backend/redactStoreUrl.js';
import { parseMySQLUrl, type MySQLSslMode } from './parseMySQLUrl.js';
import type { MySQLKVOptions } from './MySQLKV.js';

/** The table MySQLKV uses when neither `table` nor the URL's `?table=` names one. */
export const DEFAULT_TABLE = 'roster_kv';
/** Few connections: a node runs a handful of operations per interval. */
const DEFAULT_POOL_SIZE = 4;
/** The longest key the table's primary key (VARBINARY, InnoDB's 3072-byte index limit) holds. */
export const MAX_KEY_BYTES = 3072;
/** How long after the server's own `max_statement_time` the client gives up on a silent server. */
const CLIENT_TIMEOUT_MARGIN_MS = 250;
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,63}(\.[a-z_][a-z0-9_]{0,63})?$/;

/** Resolved {@link MySQLKVOptions}. */
export interface MySQLSettings extends BackendSettings {
  /** mysql2's pool options. */
  readonly pool: PoolOptions;
  readonly table: string;
  /** The URL with its password redacted, for messages. */
  readonly target: string;
  /** The client's own deadline of one statement (mysql2's `timeout`), a little past the server's. */
  readonly queryTimeoutMs: number;
}

/** Validates `options` once, up front, and builds mysql2's pool configuration. */
export function resolveMySQLSettings(options: MySQLKVOptions): MySQLSettings {
  const { limits, logger, clock, connectTimeoutMs, commandTimeoutMs } = resolveBackendOptions(options);
  if (typeof options.url !== 'string') throw new ConfigError('url', options.url, 'Expected `url` to be a `mysql://` URL');
  const parsed = parseMySQLUrl(options.url);
  if (limits.maxKeyBytes > MAX_KEY_BYTES) {
    throw new ConfigError('maxKeyBytes', limits.maxKeyBytes, `Expected \`maxKeyBytes\` to be at most ${MAX_KEY_BYTES} on MySQL (the key column's index limit)`);
  }
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) throw new ConfigError('poolSize', poolSize, 'Expected `poolSize` to be an integer from 1 to 1000');
  const table = options.table ?? parsed.table ?? DEFAULT_TABLE;
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw new ConfigError('table', table, 'Expected `table` to be a lower-case SQL identifier (`[a-z_][a-z0-9_]*`), optionally `database.table`');
  }
  const password = options.password ?? parsed.password;
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
  return {
    pool,
    table,
    target: redactStoreUrl(options.url),
    limits,
    logger,
    clock,
    connectTimeoutMs,
    commandTimeoutMs,
    queryTimeoutMs: Math.ceil(commandTimeoutMs) + CLIENT_TIMEOUT_MARGIN_MS,
  };
}

/** mysql2's TLS options (Node's, plus `verifyIdentity`) from `?ssl=` and the `tls` option. */
type MySQLTls = ConnectionOptions & { verifyIdentity?: boolean };

/**
 * mysql2's `ssl` from the URL's `?ssl=` and the `tls` option: `require` encrypts without verifying,
 * `verify-ca` verifies the chain, `verify-full` the chain and the host name; `tls` options (a CA,
 * a client certificate) apply on top, and `tls` alone means `verify-full`.
 */
function ssl(mode: MySQLSslMode, tls: boolean | ConnectionOptions | undefined): MySQLTls | undefined {
  if (tls === false) return undefined;
  const extra = typeof tls === 'object' && tls !== null ? tls : {};
  const effective = mode === 'disable' && tls !== undefined ? 'verify-full' : mode;
  switch (effective) {
    case 'disable':
      return undefined;
    case 'require':
      return { rejectUnauthorized: false, ...extra };
    case 'verify-ca':
      return { rejectUnauthorized: true, verifyIdentity: false, ...extra };
    case 'verify-full':
      return { rejectUnauthorized: true, verifyIdentity: true, ...extra };
  }
}

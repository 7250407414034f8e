import type { ConnectionOptions } from 'node:tls';
import type { PoolConfig } from 'pg';
import { resolveBackendOptions, type BackendSettings } from '../backend/backendOptions.js';
import { ConfigError } from '../errors.js';
import { redactStoreUrl } from '../backend/redactStoreUrl.js';
import { parsePostgresUrl, type PostgresSslMode } from './parsePostgresUrl.js';
import type { PostgresKVOptions } from './PostgresKV.js';

/** The table PostgresKV uses when neither `table` nor the URL's `?table=` names one. */
export const DEFAULT_TABLE = 'roster_kv';
const DEFAULT_POOL_SIZE = 8;
/** How long after the server's own `statement_timeout` the client gives up on a silent server. */
const CLIENT_TIMEOUT_MARGIN_MS = 250;
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

/** Resolved {@link PostgresKVOptions}. */
export interface PostgresSettings extends BackendSettings {
  readonly pool: PoolConfig;
  readonly table: string;
  /** The URL with its password redacted, for messages. */
  readonly target: string;
}

/** Validates `options` once, up front, and builds pg's pool configuration. */
export function resolvePostgresSettings(options: PostgresKVOptions): PostgresSettings {
  const { limits, logger, clock, connectTimeoutMs, commandTimeoutMs } = resolveBackendOptions(options);
  if (typeof options.url !== 'string') throw new ConfigError('url', options.url, 'Expected `url` to be a `postgres://` URL');
  const parsed = parsePostgresUrl(options.url);
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) throw new ConfigError('poolSize', poolSize, 'Expected `poolSize` to be an integer from 1 to 1000');
  const table = options.table ?? parsed.table ?? DEFAULT_TABLE;
  if (typeof table !== 'string' || !TABLE_NAME.test(table)) {
    throw new ConfigError('table', table, 'Expected `table` to be a lower-case SQL identifier (`[a-z_][a-z0-9_]*`), optionally `schema.table`');
  }
  const password = options.password ?? parsed.password;
  const pool: PoolConfig = {
    host: parsed.host,
    port: parsed.port,
    user: parsed.user,
    database: parsed.database,
    ...(password !== undefined && { password }),
    ssl: ssl(parsed.sslmode, options.tls),
    max: poolSize,
    // Bounds a new connection and the wait for a free one. An operation gives up at its own
    // deadline; a connection it had asked for still serves the next one, unused by it.
    connectionTimeoutMillis: Math.min(connectTimeoutMs, Math.max(commandTimeoutMs, 1000)),
    idleTimeoutMillis: 30_000,
    // Bounded on the client for a server that went silent. The server's own bounds are set with
    // `SET LOCAL` in each statement's transaction (PostgresKV), not as startup parameters, which
    // PgBouncer refuses (`unsupported startup parameter: statement_timeout`).
    query_timeout: Math.ceil(commandTimeoutMs) + CLIENT_TIMEOUT_MARGIN_MS,
    keepAlive: true,
    application_name: parsed.applicationName ?? 'roster',
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
  };
}

/**
 * pg's `ssl` from the URL's `sslmode` and the `tls` option: `require` encrypts without verifying,
 * `verify-ca` verifies the chain, `verify-full` the chain and the host name; `tls` options (a CA,
 * a client certificate) apply on top, and `tls` alone means `verify-full`.
 */
function ssl(mode: PostgresSslMode, tls: boolean | ConnectionOptions | undefined): false | ConnectionOptions {
  if (tls === false) return false;
  const extra = typeof tls === 'object' && tls !== null ? tls : {};
  const effective = mode === 'disable' && tls !== undefined ? 'verify-full' : mode;
  switch (effective) {
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false, ...extra };
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined, ...extra };
    case 'verify-full':
      return { rejectUnauthorized: true, ...extra };
  }
}

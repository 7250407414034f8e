import type { ConnectionOptions } from 'node:tls';
import type { PoolConfig } from 'pg';
import { CLIENT_TIMEOUT_MARGIN_MS, effectiveTls, resolveDatabaseOptions, type DatabaseSettings } from '../backend/databaseSettings.js';
import { parsePostgresUrl, type PostgresSslMode } from './parsePostgresUrl.js';
import type { PostgresKVOptions } from './PostgresKV.js';

/** The table PostgresKV uses when neither `table` nor the URL's `?table=` names one. */
export const DEFAULT_TABLE = 'roster_kv';
const DEFAULT_POOL_SIZE = 8;
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

/** Resolved {@link PostgresKVOptions}. */
export interface PostgresSettings extends DatabaseSettings {
  /** pg's pool options. */
  readonly pool: PoolConfig;
}

/** Validates `options` once, up front, and builds pg's pool configuration. */
export function resolvePostgresSettings(options: PostgresKVOptions): PostgresSettings {
  const { parsed, poolSize, password, ...settings } = resolveDatabaseOptions(options, {
    scheme: 'postgres',
    parse: parsePostgresUrl,
    defaultPoolSize: DEFAULT_POOL_SIZE,
    tableName: TABLE_NAME,
    tableQualifier: 'schema',
    defaultTable: DEFAULT_TABLE,
  });
  const { connectTimeoutMs, commandTimeoutMs } = settings;
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
  return { ...settings, pool };
}

/**
 * pg's `ssl` from the URL's `sslmode` and the `tls` option: `require` encrypts without verifying,
 * `verify-ca` verifies the chain, `verify-full` the chain and the host name; `tls` options (a CA,
 * a client certificate) apply on top, and `tls` alone means `verify-full`.
 */
function ssl(mode: PostgresSslMode, tls: boolean | ConnectionOptions | undefined): false | ConnectionOptions {
  const effective = effectiveTls(mode, tls);
  if (effective === undefined) return false;
  const { extra } = effective;
  switch (effective.mode) {
    case 'require':
      return { rejectUnauthorized: false, ...extra };
    case 'verify-ca':
      return { rejectUnauthorized: true, checkServerIdentity: () => undefined, ...extra };
    case 'verify-full':
      return { rejectUnauthorized: true, ...extra };
  }
}

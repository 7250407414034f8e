import type { ConnectionOptions } from 'node:tls';
import type { Clock } from './clock/Clock.js';
import { loadDriver } from './backend/loadDriver.js';
import { redactStoreUrl } from './backend/redactStoreUrl.js';
import { ConfigError } from './errors.js';
import type { KV, KVLimits } from './KV.js';
import type { Logger } from './logger.js';
// The URL parsers load no driver: each backend's class (and driver) is imported in `connect` only.
import { parseEtcdUrl } from './etcd/parseEtcdUrl.js';
import { parsePostgresUrl } from './postgres/parsePostgresUrl.js';
import { parseMySQLUrl } from './mysql/parseMySQLUrl.js';
import { parseStoreUrl } from './redis/parseStoreUrl.js';
import { parseNatsUrl } from './nats/parseNatsUrl.js';

/**
 * Options of {@link connectStore}: what every backend understands. A backend ignores what does not
 * apply to it.
 */
export interface ConnectStoreOptions extends KVLimits {
  /** How long to wait for the store to be ready. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one store operation may take before it fails as unavailable (on PostgreSQL also the
   * server's `statement_timeout`, on MariaDB its `max_statement_time`). @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /**
   * TLS: `true` or Node.js TLS options (CA, client certificate and key, server name) to use TLS,
   * `false` not to. @defaultValue what the URL says (`rediss://`, `?sslmode=`)
   */
  readonly tls?: boolean | ConnectionOptions;
  /** The user name (etcd, Redis ACL), e.g. for a URL without one; overrides the URL's. */
  readonly username?: string;
  /** The password (etcd, Redis), e.g. from a secret store for a URL without one; overrides the URL's. */
  readonly password?: string;
  /** Receives the backend's connection events. @defaultValue a silent logger */
  readonly logger?: Logger;
  /** The clock of the connect and operation deadlines. @defaultValue the real clock */
  readonly clock?: Clock;
  /** Abandons the connection attempt; `connectStore` rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** What {@link checkStoreUrl} tells of a valid store URL. */
export interface CheckedStoreUrl {
  /** The backend the URL selects: `"redis"`, `"postgres"`, … (see docs/stores.md). */
  readonly backend: string;
  /** The URL with its passwords replaced by `***`, for logs and messages. */
  readonly redacted: string;
}

/** One row of the scheme table: the schemes of one backend, how to check and open its URLs. */
interface StoreBackend {
  /** Lower-case schemes without `://`, e.g. `['postgres', 'postgresql']`. */
  readonly schemes: readonly string[];
  /** The name {@link CheckedStoreUrl.backend} reports. */
  readonly backend: string;
  /** Throws {@link ConfigError} (field `store`) unless `url` is a valid URL of this backend. */
  check(url: string): void;
  /** Opens the store; the backend's entry (and driver) is loaded only here. */
  connect(url: string, options: ConnectStoreOptions): Promise<KV>;
}

/**
 * Loads the Redis entry, whose modules import `ioredis` (an optional peer dependency) as they load:
 * without it, a {@link MissingDriverError} naming the package to install.
 */
const loadRedis = () => loadDriver('ioredis', 'RedisKV', () => import('./redis.js'));

/**
 * Loads the NATS entry, whose modules import the three NATS client packages (optional peer
 * dependencies) as they load: without one, a {@link MissingDriverError} naming it.
 */
const loadNats = () =>
  loadDriver('@nats-io/transport-node', 'NatsKV', () => loadDriver('@nats-io/jetstream', 'NatsKV', () => loadDriver('@nats-io/kv', 'NatsKV', () => import('./nats.js'))));

/**
 * The scheme table. A URL without a scheme (`host:port[,host:port…]`) is Redis. To add a backend,
 * add a row: its entry (`./redis.js`, the module behind `@roster/kv-adapter/redis`) is imported
 * inside `connect`, so that a user installs and loads only the driver of the store they use.
 */
const BACKENDS: readonly StoreBackend[] = [
  {
    // `redis://`, `rediss://`, and a comma-separated list of Redis Cluster nodes.
    schemes: ['redis', 'rediss'],
    backend: 'redis',
    check: (url) => void parseStoreUrl(url),
    connect: async (url, { signal, ...options }) => {
      const { RedisKV } = await loadRedis();
      return RedisKV.connect({ url, ...options }, { ...(signal && { signal }) });
    },
  },
  {
    // `redis+sentinel://[USER[:PASS]@]HOST:PORT[,HOST:PORT…]/MASTER_NAME[/DB]`, `rediss+sentinel://`:
    // the master a Redis Sentinel deployment names, followed through failovers by RedisKV.
    schemes: ['redis+sentinel', 'rediss+sentinel'],
    backend: 'redis-sentinel',
    check: (url) => void parseStoreUrl(url),
    connect: async (url, { signal, ...options }) => {
      const { RedisKV } = await loadRedis();
      return RedisKV.connect({ url, ...options }, { ...(signal && { signal }) });
    },
  },
  {
    // `etcd://[USER[:PASS]@]HOST:PORT[,HOST:PORT…][/PREFIX]`, `etcds://` for TLS; no driver (etcd's JSON gateway).
    schemes: ['etcd', 'etcds'],
    backend: 'etcd',
    check: (url) => void parseEtcdUrl(url),
    connect: async (url, { signal, ...options }) => {
      const { EtcdKV } = await import('./etcd.js');
      return EtcdKV.connect({ url, ...options }, { ...(signal && { signal }) });
    },
  },
  {
    // `postgres://USER[:PASS]@HOST:PORT/DB`, `postgresql://`; `pg` is an optional peer dependency.
    schemes: ['postgres', 'postgresql'],
    backend: 'postgres',
    check: (url) => void parsePostgresUrl(url),
    connect: async (url, { signal, ...options }) => {
      const { PostgresKV } = await import('./postgres.js');
      return PostgresKV.connect({ url, ...options }, { ...(signal && { signal }) });
    },
  },
  {
    // `mysql://USER[:PASS]@HOST:PORT/DB`, `mariadb://`; `mysql2` is an optional peer dependency.
    schemes: ['mysql', 'mariadb'],
    backend: 'mysql',
    check: (url) => void parseMySQLUrl(url),
    connect: async (url, { signal, ...options }) => {
      const { MySQLKV } = await import('./mysql.js');
      return MySQLKV.connect({ url, ...options }, { ...(signal && { signal }) });
    },
  },
  {
    // `nats://[USER:PASS@|TOKEN@]HOST:PORT[,HOST:PORT…][/BUCKET][?replicas=N]`, `tls://` for TLS (the
    // NATS tools' own schemes); a JetStream key-value bucket through the `@nats-io/*` v3 clients.
    schemes: ['nats', 'tls'],
    backend: 'nats',
    check: (url) => void parseNatsUrl(url),
    connect: async (url, { signal, ...options }) => {
      const { NatsKV } = await loadNats();
      return NatsKV.connect({ url, ...options }, { ...(signal && { signal }) });
    },
  },
];

/** The row for `url`: by its scheme, or Redis for a bare `host:port` list. */
function backendOf(url: unknown): StoreBackend {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ConfigError('store', url, 'Expected the store URL to be a non-empty string such as `redis://host:6379` or `postgres://user@host/db`');
  }
  const scheme = /^\s*([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return BACKENDS[0]!;
  const row = BACKENDS.find((b) => b.schemes.includes(scheme));
  if (row === undefined) {
    const known = BACKENDS.flatMap((b) => b.schemes.map((s) => `\`${s}://\``)).join(', ');
    throw new ConfigError('store', redactStoreUrl(url), `Expected the scheme to be one of ${known}, found \`${scheme.slice(0, 30)}://\``);
  }
  return row;
}

/**
 * Checks a store URL without connecting: which backend it selects, and its redacted form.
 *
 * Accepted forms (docs/stores.md): `redis://[USER[:PASS]@]HOST[:PORT][/DB]`, `rediss://…`, a
 * comma-separated list of Redis Cluster nodes (`host:port,host:port` or `redis://…,redis://…`),
 * `postgres://USER[:PASS]@HOST[:PORT]/DB[?sslmode=…&table=…]` (also `postgresql://`),
 * `redis+sentinel://[USER[:PASS]@]HOST[:PORT][,HOST[:PORT]…]/MASTER_NAME[/DB]` (also `rediss+sentinel://`),
 * `mysql://USER[:PASS]@HOST[:PORT]/DB[?ssl=…&table=…]` (also `mariadb://`), `etcd://…` and
 * `nats://[USER:PASS@|TOKEN@]HOST[:PORT][,HOST[:PORT]…][/BUCKET][?replicas=N]` (also `tls://`).
 *
 * @throws {@link ConfigError} with field `store` for an invalid URL or an unknown scheme; its
 *   `value` is the URL with its passwords redacted.
 *
 * @example
 * ```ts
 * checkStoreUrl('postgres://roster:s3cret@db.internal/app');
 * // { backend: 'postgres', redacted: 'postgres://roster:***@db.internal/app' }
 * ```
 */
export function checkStoreUrl(url: string): CheckedStoreUrl {
  const row = backendOf(url);
  row.check(url);
  return { backend: row.backend, redacted: redactStoreUrl(url) };
}

/**
 * Opens the store at `url` with the backend its scheme selects (see {@link checkStoreUrl}), and
 * resolves once it is ready. The backend's entry (`@roster/kv-adapter/redis`, `/postgres`, `/mysql`,
 * `/etcd`) is imported only then, so an application that uses PostgreSQL never loads ioredis nor
 * needs it installed, one that uses Redis never loads `pg`, and each needs its own driver installed
 * (`ioredis`, `pg`, `mysql2`, the three `@nats-io/*` clients for `nats://`; etcd needs none).
 *
 * @throws {@link ConfigError} for an invalid URL or option (field `store` for the URL).
 * @throws {@link MissingDriverError} when the backend's optional driver package is not installed.
 * @throws {@link StoreUnavailableError} when the store is not ready within `connectTimeoutMs`.
 * @throws {@link StoreAccessError} when the store refuses this client (credentials, TLS, privileges).
 *
 * @example
 * ```ts
 * const kv = await connectStore(process.env.ROSTER_STORE_URL ?? 'redis://127.0.0.1:6379', { connectTimeoutMs: 2000 });
 * try {
 *   await kv.set('hello', 'world');
 * } finally {
 *   await kv.close();
 * }
 * ```
 */
export async function connectStore(url: string, options: ConnectStoreOptions = {}): Promise<KV> {
  const row = backendOf(url);
  row.check(url);
  return row.connect(url, options);
}

import type { Cluster, Redis } from 'ioredis';
import type { Clock } from '../clock/Clock.js';
import { realClock } from '../clock/RealClock.js';
import { ConfigError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import type { RedisKVOptions } from '../RedisKV.js';
import { resolveLimits, type Limits } from '../validate.js';
import { createClient } from './createClient.js';
import { parseStoreUrl, redactStoreUrl } from './parseStoreUrl.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_COMMAND_TIMEOUT_MS = 1000;

/** Resolved {@link RedisKVOptions}. */
export interface Settings {
  readonly client: Redis | Cluster;
  /** `sentinel` when the client finds its master through Redis Sentinel. */
  readonly mode: 'single' | 'cluster' | 'sentinel';
  readonly owned: boolean;
  readonly target: string;
  readonly limits: Limits;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/** Validates `options` once, up front, and creates the client (not yet connected) for a `url`. */
export function resolveSettings(options: RedisKVOptions): Settings {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', options, 'Expected an options object');
  const limits = resolveLimits(options);
  for (const field of ['maxKeyBytes', 'maxValueBytes'] as const) {
    const v = limits[field];
    if (!Number.isInteger(v) || v <= 0) throw new ConfigError(field, v, `Expected \`${field}\` to be a positive integer`);
  }
  const connectTimeoutMs = positive('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  const commandTimeoutMs = positive('commandTimeoutMs', options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
  const common = { limits, connectTimeoutMs, commandTimeoutMs, logger: options.logger ?? silentLogger, clock: options.clock ?? realClock };

  if ((options.url === undefined) === (options.client === undefined)) {
    throw new ConfigError('url', options.url === undefined ? undefined : redactStoreUrl(options.url), 'Expected exactly one of `url` and `client`');
  }
  if (options.client !== undefined) {
    for (const field of ['cluster', 'username', 'password', 'tls', 'commandTimeoutMs', 'sentinelUsername', 'sentinelPassword'] as const) {
      if (options[field] !== undefined) {
        throw new ConfigError(field, field.endsWith('assword') ? '***' : options[field], `Expected no \`${field}\` with \`client\`: configure the client itself`);
      }
    }
    const given = options.client as { isCluster?: boolean; options?: { sentinels?: unknown } };
    const mode = given.isCluster === true ? 'cluster' : Array.isArray(given.options?.sentinels) ? 'sentinel' : 'single';
    return { ...common, mode, client: options.client, owned: false, target: 'the given ioredis client' };
  }

  const parsed = parseStoreUrl(options.url!);
  if (parsed.mode === 'sentinel') {
    if (options.cluster === true) {
      throw new ConfigError('cluster', true, 'Expected no `cluster` with a `redis+sentinel://` URL: Sentinel manages one master, not a Redis Cluster');
    }
    const tlsOption = options.tls ?? parsed.tls;
    const client = createClient(parsed, {
      username: options.username ?? parsed.username,
      password: options.password ?? parsed.password,
      sentinelUsername: options.sentinelUsername,
      sentinelPassword: options.sentinelPassword,
      tls: tlsOption === false ? undefined : tlsOption === true ? {} : tlsOption,
      connectTimeoutMs,
      commandTimeoutMs,
    });
    return { ...common, mode: 'sentinel', client, owned: true, target: redactStoreUrl(options.url!) };
  }
  if (options.sentinelUsername !== undefined || options.sentinelPassword !== undefined) {
    const field = options.sentinelUsername !== undefined ? 'sentinelUsername' : 'sentinelPassword';
    throw new ConfigError(field, field === 'sentinelPassword' ? '***' : options.sentinelUsername, `Expected \`${field}\` only with a \`redis+sentinel://\` URL`);
  }
  const mode = parsed.mode === 'single' && options.cluster === true ? 'cluster' : parsed.mode;
  const nodes = parsed.mode === 'cluster' ? parsed.nodes : [{ host: parsed.host, port: parsed.port }];
  if (mode === 'cluster' && parsed.mode === 'single' && parsed.db !== 0) {
    throw new ConfigError('store', redactStoreUrl(options.url!), 'Expected no database number in a cluster URL: Redis Cluster has only database 0');
  }
  const tlsOption = options.tls ?? parsed.tls;
  const client = createClient(mode === 'cluster' ? { mode, nodes, tls: parsed.tls } : parsed, {
    username: options.username ?? parsed.username,
    password: options.password ?? parsed.password,
    tls: tlsOption === false ? undefined : tlsOption === true ? {} : tlsOption,
    connectTimeoutMs,
    commandTimeoutMs,
  });
  return { ...common, mode, client, owned: true, target: redactStoreUrl(options.url!) };
}

function positive(field: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(field, value, `Expected \`${field}\` to be a positive number of milliseconds`);
  }
  return value;
}

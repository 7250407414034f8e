import type { Cluster, Redis } from 'ioredis';
import { resolveBackendOptions, type BackendSettings } from '../backend/backendOptions.js';
import { ConfigError } from '../errors.js';
import type { RedisKVOptions } from './RedisKV.js';
import { createClient } from './createClient.js';
import { redactStoreUrl } from '../backend/redactStoreUrl.js';
import { parseStoreUrl } from './parseStoreUrl.js';


/** Resolved {@link RedisKVOptions}. */
export interface Settings extends BackendSettings {
  readonly client: Redis | Cluster;
  /** `sentinel` when the client finds its master through Redis Sentinel. */
  readonly mode: 'single' | 'cluster' | 'sentinel';
  readonly owned: boolean;
  readonly target: string;
}

/** Validates `options` once, up front, and creates the client (not yet connected) for a `url`. */
export function resolveSettings(options: RedisKVOptions): Settings {
  const common = resolveBackendOptions(options);
  const { connectTimeoutMs, commandTimeoutMs } = common;

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
      sentinelUsername: options.sentinelUsername ?? parsed.sentinelUsername,
      sentinelPassword: options.sentinelPassword ?? parsed.sentinelPassword,
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

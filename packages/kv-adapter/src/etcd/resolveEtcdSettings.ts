import type { ConnectionOptions } from 'node:tls';
import { resolveBackendOptions, type BackendSettings } from '../backend/backendOptions.js';
import { ConfigError } from '../errors.js';
import type { EtcdKVOptions } from './EtcdKV.js';
import { parseEtcdUrl, redactEtcdUrl, type EtcdEndpoint } from './parseEtcdUrl.js';

const DEFAULT_MAX_SOCKETS = 256;

/** Resolved {@link EtcdKVOptions}. */
export interface EtcdSettings extends BackendSettings {
  readonly endpoints: readonly EtcdEndpoint[];
  readonly tls: ConnectionOptions | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly prefix: string;
  readonly target: string;
  readonly maxSockets: number;
}

/** Validates `options` once, up front. */
export function resolveEtcdSettings(options: EtcdKVOptions): EtcdSettings {
  const common = resolveBackendOptions(options);
  const parsed = parseEtcdUrl(options.url);
  const tlsOption = options.tls ?? parsed.tls;
  if (options.prefix !== undefined && typeof options.prefix !== 'string') throw new ConfigError('prefix', options.prefix, 'Expected `prefix` to be a string');
  const maxSockets = options.maxSockets ?? DEFAULT_MAX_SOCKETS;
  if (!Number.isInteger(maxSockets) || maxSockets < 1) throw new ConfigError('maxSockets', maxSockets, 'Expected `maxSockets` to be a positive integer');
  const username = options.username ?? parsed.username;
  const password = options.password ?? parsed.password;
  if (password !== undefined && username === undefined) throw new ConfigError('username', undefined, 'Expected a `username` with the password (etcd has no default user)');
  return {
    endpoints: parsed.endpoints,
    tls: tlsOption === false ? undefined : tlsOption === true ? {} : tlsOption,
    username,
    password,
    prefix: options.prefix ?? parsed.prefix,
    target: redactEtcdUrl(options.url),
    ...common,
    maxSockets,
  };
}

import type { ConnectionOptions } from 'node:tls';
import type { Clock } from '../clock/Clock.js';
import { realClock } from '../clock/RealClock.js';
import { ConfigError } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { resolveLimits, type Limits } from '../validate.js';
import type { EtcdKVOptions } from '../EtcdKV.js';
import { parseEtcdUrl, redactEtcdUrl, type EtcdEndpoint } from './parseEtcdUrl.js';

const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_COMMAND_TIMEOUT_MS = 1000;
const DEFAULT_MAX_SOCKETS = 256;

/** Resolved {@link EtcdKVOptions}. */
export interface EtcdSettings {
  readonly endpoints: readonly EtcdEndpoint[];
  readonly tls: ConnectionOptions | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly prefix: string;
  readonly target: string;
  readonly limits: Limits;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly maxSockets: number;
}

/** Validates `options` once, up front. */
export function resolveEtcdSettings(options: EtcdKVOptions): EtcdSettings {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', options, 'Expected an options object');
  const limits = resolveLimits(options);
  for (const field of ['maxKeyBytes', 'maxValueBytes'] as const) {
    const v = limits[field];
    if (!Number.isInteger(v) || v <= 0) throw new ConfigError(field, v, `Expected \`${field}\` to be a positive integer`);
  }
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
    limits,
    logger: options.logger ?? silentLogger,
    clock: options.clock ?? realClock,
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
    commandTimeoutMs: positive('commandTimeoutMs', options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS),
    maxSockets,
  };
}

function positive(field: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(field, value, `Expected \`${field}\` to be a positive number of milliseconds`);
  }
  return value;
}

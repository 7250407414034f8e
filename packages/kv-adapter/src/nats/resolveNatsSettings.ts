import type { ConnectionOptions } from 'node:tls';
import { resolveBackendOptions, type BackendSettings } from '../backend/backendOptions.js';
import { ConfigError } from '../errors.js';
import type { NatsKVOptions } from './NatsKV.js';
import { parseNatsUrl, redactNatsUrl, type NatsEndpoint } from './parseNatsUrl.js';

/** The bucket Roster uses when neither the URL nor the options name one. */
export const DEFAULT_BUCKET = 'roster';

/** Resolved {@link NatsKVOptions}. */
export interface NatsSettings extends BackendSettings {
  readonly servers: readonly NatsEndpoint[];
  readonly tls: ConnectionOptions | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly token: string | undefined;
  readonly bucket: string;
  readonly replicas: number;
  /** The URL with its secrets redacted, for messages. */
  readonly target: string;
}

/** Validates `options` once, up front. @throws {@link ConfigError} naming the field and the bad value. */
export function resolveNatsSettings(options: NatsKVOptions): NatsSettings {
  const common = resolveBackendOptions(options);
  const parsed = parseNatsUrl(options.url);
  const tlsOption = options.tls ?? parsed.tls;
  const bucket = options.bucket ?? parsed.bucket ?? DEFAULT_BUCKET;
  if (typeof bucket !== 'string' || !/^[-\w]+$/.test(bucket)) {
    throw new ConfigError('bucket', bucket, 'Expected `bucket` to be a JetStream bucket name (letters, digits, `-`, `_`)');
  }
  const replicas = options.replicas ?? parsed.replicas ?? 1;
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) throw new ConfigError('replicas', replicas, 'Expected `replicas` to be an integer from 1 to 5');
  for (const field of ['username', 'password', 'token'] as const) {
    const v = options[field];
    if (v !== undefined && typeof v !== 'string') throw new ConfigError(field, field === 'username' ? v : '***', `Expected \`${field}\` to be a string`);
  }
  const username = options.username ?? parsed.username;
  const password = options.password ?? parsed.password;
  const token = options.token ?? parsed.token;
  if (password !== undefined && username === undefined) throw new ConfigError('username', undefined, 'Expected a `username` with the password');
  if (token !== undefined && username !== undefined) throw new ConfigError('token', '***', 'Expected either a token or a user name and password, not both');
  return {
    ...common,
    servers: parsed.servers,
    tls: tlsOption === false ? undefined : tlsOption === true ? {} : tlsOption,
    username,
    password,
    token,
    bucket,
    replicas,
    target: redactNatsUrl(options.url),
  };
}

import type { Clock } from '../clock/Clock.js';
import { realClock } from '../clock/RealClock.js';
import { ConfigError } from '../errors.js';
import type { KVLimits } from '../KV.js';
import { silentLogger, type Logger } from '../logger.js';
import { resolveLimits, type Limits } from '../validate.js';

/** How long a backend waits for its store to be ready, unless told otherwise. */
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
/** How long one store operation may take, unless told otherwise. */
const DEFAULT_COMMAND_TIMEOUT_MS = 1000;

/** The options every store backend takes (RedisKV, PostgresKV, EtcdKV), beside its own. */
export interface BackendOptions extends KVLimits {
  readonly connectTimeoutMs?: number | undefined;
  readonly commandTimeoutMs?: number | undefined;
  readonly logger?: Logger | undefined;
  readonly clock?: Clock | undefined;
}

/** {@link BackendOptions} validated, with their defaults. */
export interface BackendSettings {
  readonly limits: Limits;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
}

/**
 * Validates the options every backend shares, once, up front: an options object, positive integer
 * limits, positive timeouts (5 s to connect and 1 s an operation by default), a silent logger and
 * the real clock by default.
 *
 * @throws {@link ConfigError} naming the field and the bad value.
 */
export function resolveBackendOptions(options: BackendOptions): BackendSettings {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', options, 'Expected an options object');
  const limits = resolveLimits(options);
  for (const field of ['maxKeyBytes', 'maxValueBytes'] as const) {
    const v = limits[field];
    if (!Number.isInteger(v) || v <= 0) throw new ConfigError(field, v, `Expected \`${field}\` to be a positive integer`);
  }
  return {
    limits,
    logger: options.logger ?? silentLogger,
    clock: options.clock ?? realClock,
    connectTimeoutMs: positiveMs('connectTimeoutMs', options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS),
    commandTimeoutMs: positiveMs('commandTimeoutMs', options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS),
  };
}

function positiveMs(field: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(field, value, `Expected \`${field}\` to be a positive number of milliseconds`);
  }
  return value;
}

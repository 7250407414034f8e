import { ConfigError } from '@roster/kv-adapter';

/** The heartbeat interval I, when none is given: 1 s. */
export const DEFAULT_INTERVAL_MS = 1000;
/** The heartbeat timeout T, when none is given: 5 s. */
export const DEFAULT_TIMEOUT_MS = 5000;

/**
 * The two timing parameters of a primary election.
 *
 * - I (`intervalMs`): how often a contender polls the table and a primary heartbeats.
 * - T (`timeoutMs`): how old (in store time) a heartbeat may be before its entry counts as empty.
 *
 * T must be greater than 2I: a claimant confirms its claim one poll (I) after writing it and must
 * still have time left before its own self-stop at T − I. A primary whose local clock runs slow
 * by a rate δ relative to the store's clock never overlaps a successor when T ≤ I / δ (see
 * docs/primary.md for the bound otherwise).
 */
export interface HeartbeatTiming {
  /**
   * The interval I between polls and heartbeats, in ms.
   * @defaultValue 1000
   */
  readonly intervalMs?: number;
  /**
   * The heartbeat timeout T, in ms of store time; must be greater than `2 × intervalMs`.
   * @defaultValue 5000
   */
  readonly timeoutMs?: number;
}

/** {@link HeartbeatTiming} with every value present and validated. */
export interface ResolvedTiming {
  /** I, in ms. */
  readonly intervalMs: number;
  /** T, in ms. */
  readonly timeoutMs: number;
}

/**
 * Validates I and T once, up front, and fills in the defaults.
 *
 * @throws {@link ConfigError} naming the field: `intervalMs` not a positive finite number,
 *   `timeoutMs` not greater than twice `intervalMs`.
 * @example
 * ```ts
 * resolveTiming({ intervalMs: 100, timeoutMs: 150 });
 * // ConfigError: config: Expected `timeoutMs` to be greater than twice `intervalMs` (100), got 150
 * ```
 */
export function resolveTiming(timing: HeartbeatTiming = {}): ResolvedTiming {
  const intervalMs = timing.intervalMs ?? DEFAULT_INTERVAL_MS;
  const timeoutMs = timing.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  checkTimeout(timeoutMs);
  if (typeof intervalMs !== 'number' || !Number.isFinite(intervalMs) || intervalMs <= 0) {
    throw new ConfigError('intervalMs', intervalMs, 'Expected `intervalMs` to be a positive number of milliseconds');
  }
  if (!(timeoutMs > 2 * intervalMs)) {
    throw new ConfigError('timeoutMs', timeoutMs, `Expected \`timeoutMs\` to be greater than twice \`intervalMs\` (${intervalMs})`);
  }
  return { intervalMs, timeoutMs };
}

/** Throws {@link ConfigError} unless `timeoutMs` is a positive finite number. */
export function checkTimeout(timeoutMs: unknown): asserts timeoutMs is number {
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new ConfigError('timeoutMs', timeoutMs, 'Expected `timeoutMs` to be a positive number of milliseconds');
  }
}

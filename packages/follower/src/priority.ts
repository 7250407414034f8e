import { ConfigError } from '@roster/kv-adapter';

/**
 * Highest priority a node may carry: 999,999,999,999 (twelve digits), room for
 * {@link priorityFromVersion} of any `major.minor.patch` with a major below 1,000,000.
 */
export const MAX_PRIORITY = 999_999_999_999;

/** Throws {@link ConfigError} naming `field` unless `priority` is an integer from 0 to {@link MAX_PRIORITY}. */
export function checkPriority(priority: unknown, field = 'priority'): asserts priority is number {
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > MAX_PRIORITY) {
    throw new ConfigError(field, priority, `Expected \`${field}\` to be an integer from 0 to ${MAX_PRIORITY}`);
  }
}

const VERSION = /^v?(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,2})\.(0|[1-9]\d{0,2})(\+[0-9A-Za-z.-]+)?$/;

/**
 * The priority of a release, for rolling deploys: `major × 1,000,000 + minor × 1,000 + patch`, so
 * that a node of a newer version outranks the older ones and leadership moves once, to the first
 * node of the new version (docs/protocol.md, "Priorities and rolling deploys"). Takes
 * `major.minor.patch`, an optional leading `v` and build metadata (`+…`, ignored); minor and patch
 * at most 999, major at most 999,999. A pre-release (`1.4.2-rc.1`) has no place in that order and
 * is refused: give its priority explicitly. Throws a {@link ConfigError} (code `CONFIG_INVALID`,
 * field `priority`) for anything else.
 *
 * @example
 * ```ts
 * priorityFromVersion('1.4.2'); // 1004002
 * priorityFromVersion('v2.0.0+build.7'); // 2000000
 * ```
 */
export function priorityFromVersion(version: string): number {
  const m = typeof version === 'string' ? VERSION.exec(version) : null;
  if (!m) {
    throw new ConfigError(
      'priority',
      version,
      'Expected a version `major.minor.patch` (optional leading `v` and `+build`; minor and patch at most 999, no pre-release) to derive a priority from',
    );
  }
  return Number(m[1]) * 1_000_000 + Number(m[2]) * 1_000 + Number(m[3]);
}

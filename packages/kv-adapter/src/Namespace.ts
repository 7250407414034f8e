import { ConfigError } from './errors.js';

/** Longest group or environment name accepted. */
const MAX_NAME = 128;
const NAME = /^[A-Za-z0-9._\-:@]+$/;

/**
 * A key prefix for one group in one environment: `roster/<group>/<env>/`.
 * Two groups, or two environments of one group, never see each other's keys.
 *
 * Names are 1 to 128 of letters, digits and `. _ - : @`, and neither `.` alone nor anything
 * containing `..`. So no space (the compound-key separator), no `/` (the namespace separator), no
 * glob characters (`* ? [ ]`, so a `SCAN MATCH` or an ACL key pattern written from a name matches
 * only its own namespace), no braces (so Redis Cluster hash tags never pin Roster's keys to one
 * slot), no control characters, no path-like `..`, and no non-ASCII lookalikes. Two different
 * (group, env) pairs give two prefixes neither of which starts with the other.
 *
 * @example
 * ```ts
 * const ns = new Namespace('billing', 'dev');
 * ns.key('leader'); // 'roster/billing/dev/leader'
 * ```
 */
export class Namespace {
  /** The group: the nodes that elect one leader among them (typically the application name). */
  readonly group: string;
  /** The environment (`production`, `dev`, …). */
  readonly env: string;
  /** The prefix every key of this namespace starts with. */
  readonly prefix: string;

  constructor(group: string, env: string, options: { root?: string } = {}) {
    Namespace.check('group', group);
    Namespace.check('env', env);
    const root = options.root ?? 'roster';
    Namespace.check('root', root);
    this.group = group;
    this.env = env;
    this.prefix = `${root}/${group}/${env}/`;
  }

  /** The full key for `name` in this namespace. */
  key(name: string): string {
    return this.prefix + name;
  }

  /** Throws {@link ConfigError} unless `value` is a valid group, environment or root name. */
  static check(field: string, value: unknown): asserts value is string {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NAME || !NAME.test(value) || value === '.' || value.includes('..')) {
      throw new ConfigError(
        field,
        value,
        `Expected \`${field}\` to be 1 to ${MAX_NAME} characters of letters, digits and . _ - : @ (not \`.\` alone, no \`..\`)`,
      );
    }
  }
}

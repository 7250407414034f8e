import { ConfigError, type Namespace } from '@roster/kv-adapter';

/** Longest role type accepted, in UTF-16 units. */
export const MAX_UTYPE_LENGTH = 128;
/** Longest endpoint accepted, in UTF-16 units. */
export const MAX_ENDPOINT_LENGTH = 1024;

const NO_SPACE = /^\S+$/u;

/** Why `value` is not a valid role type, or `undefined` when it is one. */
export function utypeProblem(value: unknown): string | undefined {
  return tokenProblem(value, MAX_UTYPE_LENGTH);
}

/** Why `value` is not a valid endpoint, or `undefined` when it is one. */
export function endpointProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `a string, not ${typeof value}`;
  if (value.length === 0 || value.length > MAX_ENDPOINT_LENGTH) return `1 to ${MAX_ENDPOINT_LENGTH} characters`;
  if (!value.isWellFormed()) return 'well-formed text';
  return undefined;
}

/**
 * Throws {@link ConfigError} unless `utype` is a valid role type: 1 to 128 characters, no
 * whitespace, well-formed text.
 */
export function checkUtype(utype: unknown, field = 'utype'): asserts utype is string {
  const problem = utypeProblem(utype);
  if (problem) throw new ConfigError(field, utype, `Expected \`${field}\` to be ${problem}`);
}

/** Throws {@link ConfigError} unless `endpoint` is 1 to 1024 characters of well-formed text. */
export function checkEndpoint(endpoint: unknown, field = 'endpoint'): asserts endpoint is string {
  const problem = endpointProblem(endpoint);
  if (problem) throw new ConfigError(field, endpoint, `Expected \`${field}\` to be ${problem}`);
}

/**
 * The store key of the heartbeat entry of `utype`: `<namespace prefix>primary/<utype>`.
 *
 * @example
 * ```ts
 * heartbeatKey(new Namespace('shop', 'prod'), 'billing'); // 'roster/shop/prod/primary/billing'
 * ```
 */
export function heartbeatKey(namespace: Namespace, utype: string): string {
  checkUtype(utype);
  return namespace.key(`primary/${utype}`);
}

function tokenProblem(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return `a string, not ${typeof value}`;
  if (value.length === 0 || value.length > max) return `1 to ${max} characters without whitespace`;
  if (!NO_SPACE.test(value)) return `1 to ${max} characters without whitespace`;
  if (!value.isWellFormed()) return 'well-formed text (no lone surrogate)';
  return undefined;
}

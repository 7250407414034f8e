import { ConfigError } from '@roster/kv-adapter';

/**
 * Which keys a fault applies to: an exact key, `{ prefix }`, a `RegExp`, a predicate, or a list
 * of these (any of them matches).
 *
 * @example
 * ```ts
 * 'roster/app/prod/leader 0'           // this key only
 * { prefix: 'roster/app/prod/leader ' } // every nonce of the leader key
 * /^roster\/app\/prod\/ping /          // a RegExp
 * (key) => key.endsWith(' 0')          // a predicate
 * ```
 */
export type KeySelector =
  | string
  | RegExp
  | { readonly prefix: string }
  | ((key: string) => boolean)
  | readonly KeySelector[];

/** Compiles `selector` into a predicate; throws {@link ConfigError} naming `field` when it is not a selector. */
export function keyMatcher(selector: KeySelector, field = 'keys'): (key: string) => boolean {
  if (typeof selector === 'string') return (key) => key === selector;
  if (typeof selector === 'function') return (key) => selector(key) === true;
  if (selector instanceof RegExp) {
    // A global or sticky RegExp keeps state between test() calls; drop those flags.
    const re = new RegExp(selector.source, selector.flags.replace(/[gy]/g, ''));
    return (key) => re.test(key);
  }
  if (Array.isArray(selector)) {
    const matchers = (selector as readonly KeySelector[]).map((s) => keyMatcher(s, field));
    return (key) => matchers.some((m) => m(key));
  }
  if (typeof selector === 'object' && selector !== null && typeof (selector as { prefix?: unknown }).prefix === 'string') {
    const { prefix } = selector as { prefix: string };
    return (key) => key.startsWith(prefix);
  }
  throw new ConfigError(field, selector, `Expected \`${field}\` to be a key, { prefix }, a RegExp, a predicate or a list of these`);
}

import type { CompareAndSetOptions, KV } from '@roster/kv-adapter';
import { MAX_HEADER_BYTES, parseHeader } from '@roster/follower';

/**
 * What a compare-and-set that replaces the leader-key value `raw` expects there. A long
 * broadcast (thousands of members) is named by its header `Era Nonce Version Id ` when the store
 * compares prefixes (`capabilities.comparePrefix`): no two values a writer puts at a leader key
 * share a header (every publication takes a new Version, a claim is written once), so the header
 * names the value, and a candidate claiming over a leader of N members sends a few bytes, not N
 * ids. Anything else (a short value, garbage, a store without prefix compares) is expected whole.
 *
 * @example
 * ```ts
 * const { expected, options } = expectedValue(kv, slot.raw);
 * await kv.compareAndSet(key, expected, claimText, options);
 * ```
 */
export function expectedValue(kv: KV, raw: string | null): { readonly expected: string | null; readonly options: Pick<CompareAndSetOptions, 'prefix'> } {
  if (raw === null || raw.length <= PREFIX_WORTHWHILE || kv.capabilities.comparePrefix !== true) return { expected: raw, options: {} };
  const parsed = parseHeader(raw.slice(0, MAX_HEADER_BYTES));
  return parsed === undefined ? { expected: raw, options: {} } : { expected: raw.slice(0, parsed.length), options: { prefix: true } };
}

/** Values up to this many characters are expected whole: their header would save little. */
const PREFIX_WORTHWHILE = 2 * MAX_HEADER_BYTES;

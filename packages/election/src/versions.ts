import type { CompareAndSetOptions, KV } from '@roster/kv-adapter';
import { compareLeadership, MAX_HEADER_BYTES, parseHeader, type Broadcast, type Member } from '@roster/follower';

// How a leader numbers and compares what it writes at the leader key: the Version rules, what is
// news to a reader, and what a compare-and-set over a leader-key value expects.

/**
 * True when `next` is news over `known`: a better leadership, or a later version of the same one
 * (anything is news over nothing).
 */
export function supersedes(next: Broadcast, known: Broadcast | undefined): boolean {
  if (known === undefined) return true;
  const c = compareLeadership(next, known);
  return c < 0 || (c === 0 && next.version > known.version);
}

/**
 * How a leader numbers its publications so that a reader can tell from the Version alone whether
 * the member list changed: a publication that changes the list jumps to the next multiple of
 * `LIST_STRIDE`, one that repeats it adds 1. Versions still grow with every publication (seed
 * 003), so any reader sees the same progress; Roster's followers read only the broadcast's header
 * while `listEpoch(version)` stays the same, and fetch the whole value when it moves.
 */
export const LIST_STRIDE = 1000;

/** The list epoch of a version: it changes whenever the leader's member list changed. */
export function listEpoch(version: number): number {
  return Math.floor(version / LIST_STRIDE);
}

/** The Version of a leader's next publication after `version` (see {@link LIST_STRIDE}). */
export function nextVersion(version: number, listChanged: boolean): number {
  return listChanged ? (listEpoch(version) + 1) * LIST_STRIDE : version + 1;
}

/** True when two member lists are the same, in the same order, with the same weights. */
export function sameMembers(a: readonly Member[], b: readonly Member[]): boolean {
  return a.length === b.length && a.every((m, i) => m.id === b[i]!.id && m.weight === b[i]!.weight);
}

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

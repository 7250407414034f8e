import { formatMember, isValidId, parseMember, type Member } from './ids.js';

/**
 * The leader broadcast of seed 003, the value at the leader key:
 *
 * ```
 * Era Nonce Version Id member1 member2 …
 * ```
 *
 * - `era` grows with every election (a candidate claims `max era seen + 1`);
 * - `nonce` is the leader-key nonce at which the leader declared itself;
 * - `version` grows with every publication; `0` marks a candidate's claim, not yet confirmed;
 * - `id` is the leader (or candidate);
 * - the members are the active nodes, the leader included, each `id` or `id:weight`.
 *
 * A broadcast with no members at all is a **goodbye**: the leader resigned and leads no more.
 */
export interface Broadcast {
  readonly era: number;
  readonly nonce: number;
  readonly version: number;
  readonly id: string;
  readonly members: readonly Member[];
}

/** Most members a broadcast may list. */
export const MAX_MEMBERS = 100_000;

/** Largest nonce a broadcast may carry (compound-key windows are at most 1024 wide). */
export const MAX_NONCE = 1023;

const UINT = /^(0|[1-9]\d{0,15})$/;

/** Formats a broadcast exactly as `Era Nonce Version Id member…`. */
export function formatBroadcast(b: Broadcast): string {
  return [b.era, b.nonce, b.version, b.id, ...b.members.map(formatMember)].join(' ');
}

/** Why {@link parseBroadcast} refused a value. */
export type BroadcastParseResult = { ok: true; broadcast: Broadcast } | { ok: false; reason: string };

/**
 * Parses a leader-key value strictly: single spaces, decimal integers without sign or leading
 * zeros, `era ≥ 1`, `nonce ≤ 1023`, valid ids, no duplicate member. Anything else is refused with
 * a reason, and must be treated as no broadcast at all.
 */
export function parseBroadcast(value: string): BroadcastParseResult {
  const parts = value.split(' ');
  if (parts.length < 4) return { ok: false, reason: 'fewer than 4 fields' };
  if (parts.length > MAX_MEMBERS + 4) return { ok: false, reason: 'too many members' };
  const [e, n, v, id, ...rest] = parts as [string, string, string, string, ...string[]];
  if (!UINT.test(e) || !UINT.test(n) || !UINT.test(v)) return { ok: false, reason: 'era, nonce and version must be unsigned integers' };
  const era = Number(e);
  const nonce = Number(n);
  const version = Number(v);
  if (!Number.isSafeInteger(era) || !Number.isSafeInteger(version)) return { ok: false, reason: 'number too large' };
  if (era < 1) return { ok: false, reason: 'era must be at least 1' };
  if (nonce > MAX_NONCE) return { ok: false, reason: `nonce over ${MAX_NONCE}` };
  if (!isValidId(id)) return { ok: false, reason: 'invalid leader id' };
  const members: Member[] = [];
  const seen = new Set<string>();
  for (const token of rest) {
    const m = parseMember(token);
    if (!m) return { ok: false, reason: `invalid member ${JSON.stringify(token.slice(0, 40))}` };
    if (seen.has(m.id)) return { ok: false, reason: `duplicate member ${m.id}` };
    seen.add(m.id);
    members.push(m);
  }
  if (version === 0 && (members.length !== 1 || members[0]!.id !== id)) {
    return { ok: false, reason: 'a claim (version 0) must list exactly its candidate' };
  }
  return { ok: true, broadcast: { era, nonce, version, id, members } };
}

/** True for a goodbye: a broadcast whose leader lists no member, not even itself. */
export function isGoodbye(b: Broadcast): boolean {
  return b.members.length === 0;
}

/** True for a candidate's claim, not yet confirmed (version 0). */
export function isClaim(b: Broadcast): boolean {
  return b.version === 0;
}

/**
 * Orders leaderships, best first: highest era, then lowest nonce, then lowest id. The id only
 * decides between two values that claim the same era at the same nonce, which one key can hold
 * only one at a time (compare-and-set lets a single claimant win it); a reader that saw both
 * at different times still orders them the same way everywhere.
 * Negative when `a` is the better leader.
 */
export function compareLeadership(a: Broadcast, b: Broadcast): number {
  if (a.era !== b.era) return b.era - a.era;
  if (a.nonce !== b.nonce) return a.nonce - b.nonce;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** True when `a` and `b` come from the same leadership (same era, nonce and id). */
export function sameLeadership(a: Broadcast | undefined, b: Broadcast | undefined): boolean {
  return a !== undefined && b !== undefined && a.era === b.era && a.nonce === b.nonce && a.id === b.id;
}

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
 * Picks the best broadcast: the best leadership by {@link compareLeadership}, and of its copies
 * (a leader that moved to another nonce leaves an older copy behind) the highest version.
 */
export function bestBroadcast(candidates: Iterable<Broadcast>): Broadcast | undefined {
  let best: Broadcast | undefined;
  for (const b of candidates) {
    if (best === undefined) best = b;
    else {
      const c = compareLeadership(b, best);
      if (c < 0 || (c === 0 && b.version > best.version)) best = b;
    }
  }
  return best;
}

/**
 * The fencing token of a leadership: `era × 1024 + (1023 − nonce)`. It strictly increases from
 * one leader to the next, because a better leadership has a higher era, or the same era at a
 * lower nonce. Pass it to downstream resources, which reject writes carrying a token lower than
 * the highest they have seen.
 */
export function fencingToken(b: Pick<Broadcast, 'era' | 'nonce'>): bigint {
  return BigInt(b.era) * 1024n + BigInt(MAX_NONCE - b.nonce);
}

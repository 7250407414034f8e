import { formatMember, isValidId, parseMember, type Member } from './ids.js';

/**
 * The leader broadcast, the value at the leader key:
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
  const head = formatHeader(b);
  // A goodbye (no members) ends with its id, without the space that would start a member.
  return b.members.length === 0 ? head.slice(0, -1) : head + membersText(b.members);
}

/**
 * The header `Era Nonce Version Id ` with its trailing space: what a broadcast with members begins
 * with, exactly (the codec's one spelling, which {@link parseHeader} reads back).
 *
 * @example
 * ```ts
 * formatHeader({ era: 3, nonce: 0, version: 41, id: 'alpha' }); // '3 0 41 alpha '
 * ```
 */
export function formatHeader(h: BroadcastHeader): string {
  return `${h.era} ${h.nonce} ${h.version} ${h.id} `;
}

/**
 * The text of long member lists, by list: a list is shared by the broadcasts of its Versions and,
 * through a `ListCache`, by the nodes of a process, so it is formatted once, not at every use.
 */
const listTexts = new WeakMap<readonly Member[], string>();

/** Lists shorter than this are formatted each time (cheaper than the lookup). */
const MEMO_MEMBERS = 64;

function membersText(members: readonly Member[]): string {
  if (members.length < MEMO_MEMBERS) return members.map(formatMember).join(' ');
  let text = listTexts.get(members);
  if (text === undefined) {
    text = members.map(formatMember).join(' ');
    listTexts.set(members, text);
  }
  return text;
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

/** The leading fields of a broadcast, as {@link parseHeader} reads them. */
export type BroadcastHeader = Pick<Broadcast, 'era' | 'nonce' | 'version' | 'id'>;

/**
 * Longest header `Era Nonce Version Id ` in UTF-8 bytes, its trailing space included: 16-digit era
 * and version, a 4-digit nonce, a 128-byte id.
 */
export const MAX_HEADER_BYTES = 16 + 1 + 4 + 1 + 16 + 1 + 128 + 1;

/**
 * Reads the header of a broadcast from the start of its value (e.g. the first bytes, read with
 * `getRange`): the fields `Era Nonce Version Id` and the length of the header with its trailing
 * space. `undefined` when the text holds no complete header followed by a member (too short, or
 * not a broadcast: read the whole value then).
 */
export function parseHeader(head: string): { header: BroadcastHeader; length: number } | undefined {
  let at = -1;
  for (let field = 0; field < 4; field++) {
    at = head.indexOf(' ', at + 1);
    if (at < 0) return undefined;
  }
  const [e, n, v, id] = head.slice(0, at).split(' ') as [string, string, string, string];
  if (!UINT.test(e) || !UINT.test(n) || !UINT.test(v)) return undefined;
  const era = Number(e);
  const nonce = Number(n);
  const version = Number(v);
  if (!Number.isSafeInteger(era) || !Number.isSafeInteger(version) || era < 1 || nonce > MAX_NONCE || !isValidId(id)) return undefined;
  return { header: { era, nonce, version, id }, length: at + 1 };
}

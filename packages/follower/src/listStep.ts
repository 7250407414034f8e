import { type Broadcast, type BroadcastHeader } from './broadcast.js';
import { formatMember, isValidId, parseMember, sameMember, type Member } from './ids.js';
import { listEpoch } from './versions.js';

/**
 * Which member list a {@link ListStep} leads from or to: the list of leadership `era nonce id` at
 * list epoch `epoch` (see `listEpoch`). Every publication of one leadership within one list epoch
 * lists the same members, so this names one list exactly.
 */
export interface ListId {
  readonly era: number;
  readonly nonce: number;
  readonly id: string;
  readonly epoch: number;
}

/**
 * A change of the member list from one publication to a later one, as the leader writes it beside
 * the broadcast (the leader key itself keeps its `Era Nonce Version Id member…` format): the ids `removed` from the list
 * `from`, then the members `added`, each at its place in the new list. A follower that holds the
 * list `from` builds the list `to` from it, reading a few bytes per change instead of the whole
 * list again. A member whose weight or priority changed is removed and added.
 */
export interface ListStep {
  readonly from: ListId;
  readonly to: ListId;
  /** How many members the list `to` has. */
  readonly count: number;
  readonly removed: readonly string[];
  /** In increasing `index` order: where each added member stands in the list `to`. */
  readonly added: readonly { readonly index: number; readonly member: Member }[];
}

/** The {@link ListId} of a broadcast's list. */
export function listIdOf(b: BroadcastHeader): ListId {
  return { era: b.era, nonce: b.nonce, id: b.id, epoch: listEpoch(b.version) };
}

/** True when `a` and `b` name the same list. */
export function sameListId(a: ListId, b: ListId): boolean {
  return a.era === b.era && a.nonce === b.nonce && a.id === b.id && a.epoch === b.epoch;
}

/** A map key for a {@link ListId}. */
export function listIdKey(l: ListId): string {
  return `${l.era}/${l.nonce}/${l.id}/${l.epoch}`;
}

/**
 * The step from the list `from` to the list `to`: the members of `to` that keep their weight and,
 * among those, the longest run in the same relative order as in `from` stay; every other member
 * of `from` is removed and every other member of `to` added at its place. `undefined` when the
 * step would not be smaller than the list itself (more changes than half of `to`).
 *
 * @example
 * ```ts
 * const step = diffLists(listIdOf(old), old.members, listIdOf(next), next.members);
 * if (step) await kv.set(keys.listStep(step.to), formatListStep(step), { ttlMs });
 * ```
 */
export function diffLists(fromId: ListId, from: readonly Member[], toId: ListId, to: readonly Member[]): ListStep | undefined {
  const at = new Map<string, { index: number; member: Member }>();
  from.forEach((m, index) => at.set(m.id, { index, member: m }));
  // Members of `to` also in `from` with the same weight and priority, with their place in `from`.
  const common: { toIndex: number; fromIndex: number }[] = [];
  to.forEach((m, toIndex) => {
    const f = at.get(m.id);
    if (f !== undefined && sameMember(f.member, m)) common.push({ toIndex, fromIndex: f.index });
  });
  const keep = longestIncreasing(common.map((c) => c.fromIndex));
  const kept = new Set<number>(keep.map((i) => common[i]!.toIndex));
  const keptIds = new Set<string>();
  const added: { index: number; member: Member }[] = [];
  to.forEach((m, index) => {
    if (kept.has(index)) keptIds.add(m.id);
    else added.push({ index, member: m });
  });
  const removed = from.filter((m) => !keptIds.has(m.id)).map((m) => m.id);
  if (2 * (removed.length + added.length) > to.length) return undefined;
  return { from: fromId, to: toId, count: to.length, removed, added };
}

/** Indices (into `xs`) of one longest strictly increasing subsequence of `xs`, in order. */
function longestIncreasing(xs: readonly number[]): number[] {
  const tails: number[] = []; // tails[k]: index in xs of the smallest tail of a run of length k + 1
  const prev: number[] = new Array<number>(xs.length);
  for (let i = 0; i < xs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tails[mid]!]! < xs[i]!) lo = mid + 1;
      else hi = mid;
    }
    prev[i] = lo > 0 ? tails[lo - 1]! : -1;
    tails[lo] = i;
  }
  const out: number[] = [];
  for (let i = tails.length > 0 ? tails[tails.length - 1]! : -1; i >= 0; i = prev[i]!) out.push(i);
  return out.reverse();
}

/**
 * Formats a step as it is stored:
 * `toEra toNonce toId toEpoch fromEra fromNonce fromId fromEpoch count op…`, each op `-id` (removed)
 * or `+index:member` (added at `index`, the member as in the broadcast: `id` or `id:weight`).
 */
export function formatListStep(s: ListStep): string {
  const ops = [...s.removed.map((id) => `-${id}`), ...s.added.map((a) => `+${a.index}:${formatMember(a.member)}`)];
  return [s.to.era, s.to.nonce, s.to.id, s.to.epoch, s.from.era, s.from.nonce, s.from.id, s.from.epoch, s.count, ...ops].join(' ');
}

const UINT = /^(0|[1-9]\d{0,15})$/;

function uint(s: string | undefined): number | undefined {
  if (s === undefined || !UINT.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Parses a stored step strictly (see {@link formatListStep}); `undefined` for anything else, which
 * a reader treats as no step at all (it reads the whole broadcast instead).
 */
export function parseListStep(value: string): ListStep | undefined {
  const parts = value.split(' ');
  if (parts.length < 9) return undefined;
  const list = (e: string | undefined, n: string | undefined, id: string | undefined, p: string | undefined): ListId | undefined => {
    const era = uint(e);
    const nonce = uint(n);
    const epoch = uint(p);
    return era === undefined || nonce === undefined || epoch === undefined || !isValidId(id) ? undefined : { era, nonce, id, epoch };
  };
  const to = list(parts[0], parts[1], parts[2], parts[3]);
  const from = list(parts[4], parts[5], parts[6], parts[7]);
  const count = uint(parts[8]);
  if (!to || !from || count === undefined) return undefined;
  const removed: string[] = [];
  const added: { index: number; member: Member }[] = [];
  for (let i = 9; i < parts.length; i++) {
    const op = parts[i]!;
    if (op.startsWith('-')) {
      const id = op.slice(1);
      if (!isValidId(id) || added.length > 0) return undefined;
      removed.push(id);
    } else if (op.startsWith('+')) {
      const colon = op.indexOf(':');
      const index = colon < 0 ? undefined : uint(op.slice(1, colon));
      const member = colon < 0 ? undefined : parseMember(op.slice(colon + 1));
      if (index === undefined || member === undefined || index >= count) return undefined;
      if (added.length > 0 && index <= added[added.length - 1]!.index) return undefined;
      added.push({ index, member });
    } else return undefined;
  }
  return { from, to, count, removed, added };
}

/**
 * The list `step.to`, built from `base`, the list `step.from`; `undefined` when the step does not
 * fit it (an id removed that `base` lacks, an id added twice or already kept, a count that does
 * not add up): the reader then reads the whole broadcast. Costs one pass over `base`.
 */
export function applyListStep(base: readonly Member[], step: ListStep): Member[] | undefined {
  const removed = new Set(step.removed);
  const added = new Set<string>();
  for (const a of step.added) added.add(a.member.id);
  if (removed.size !== step.removed.length || added.size !== step.added.length) return undefined;
  if (base.length - removed.size + added.size !== step.count) return undefined;
  const out: Member[] = new Array<Member>(step.count);
  let found = 0;
  let next = 0; // the next added member
  let i = 0; // the next place in `out`
  const placeAdded = (): void => {
    while (next < step.added.length && step.added[next]!.index === i) out[i++] = step.added[next++]!.member;
  };
  for (const m of base) {
    if (removed.size > 0 && removed.has(m.id)) {
      found++;
      continue;
    }
    if (added.has(m.id)) return undefined;
    placeAdded();
    out[i++] = m;
  }
  placeAdded();
  if (found !== removed.size || next !== step.added.length || i !== step.count) return undefined;
  return out;
}

/** The broadcast at `header` whose list is `members` (a list built by {@link applyListStep}). */
export function withMembers(header: BroadcastHeader, members: readonly Member[]): Broadcast {
  return { era: header.era, nonce: header.nonce, version: header.version, id: header.id, members };
}

/**
 * Member lists by {@link ListId}, the last few seen: the bases a reader builds new lists from with
 * steps, and the lists it need not read again. One leadership publishes one list per list epoch,
 * so a list found here is the list of any broadcast with that id. A process that hosts many nodes
 * of one group may give them one cache (`createNode({ listCache })`): each new list is then read
 * or built once per process, not once per node, and every node holds the same array.
 *
 * @example
 * ```ts
 * const listCache = new ListCache();
 * const nodes = ids.map((id) => createNode({ store: kv, group: 'jobs', env: 'prod', id, listCache }));
 * ```
 */
export class ListCache {
  readonly #lists = new Map<string, readonly Member[]>();
  readonly #loading = new Map<string, Promise<Broadcast | undefined>>();
  readonly #capacity: number;

  /** @param capacity - how many lists are kept, the most recently stored ones (at least 1). */
  constructor(capacity = 8) {
    this.#capacity = Math.max(1, Math.floor(capacity));
  }

  /** The list `id`, when kept. */
  get(id: ListId): readonly Member[] | undefined {
    return this.#lists.get(listIdKey(id));
  }

  /**
   * The broadcast holding the list `id`, fetched by `fetch` once for every caller that asks with
   * the same `id` and `where` (the key it is read from) while the fetch is in flight; `ran` tells
   * the caller whether its own `fetch` ran. What the fetch found (the list `id`, or a later one of
   * the same leadership, published meanwhile) is kept. Callers check the broadcast against what
   * they asked for. Never rejects (a fetch that rejects yields `undefined`).
   */
  async load(id: ListId, where: string, fetch: () => Promise<Broadcast | undefined>): Promise<{ broadcast: Broadcast | undefined; ran: boolean }> {
    const k = `${where} ${listIdKey(id)}`;
    const inFlight = this.#loading.get(k);
    if (inFlight !== undefined) return { broadcast: await inFlight, ran: false };
    const loading = fetch().then(
      (b) => {
        if (b !== undefined && b.version > 0 && b.members.length > 0) this.put(listIdOf(b), b.members);
        return b;
      },
      () => undefined,
    );
    this.#loading.set(k, loading);
    try {
      return { broadcast: await loading, ran: true };
    } finally {
      this.#loading.delete(k);
    }
  }

  /** Keeps `members` as the list `id` (dropping the oldest list beyond the capacity). */
  put(id: ListId, members: readonly Member[]): void {
    const k = listIdKey(id);
    if (this.#lists.get(k) === members) return;
    this.#lists.delete(k);
    this.#lists.set(k, members);
    if (this.#lists.size > this.#capacity) this.#lists.delete(this.#lists.keys().next().value!);
  }
}

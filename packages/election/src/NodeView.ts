import { fencingToken, sameMember, type Broadcast, type Member } from '@roster/follower';
import { type Logger } from '@roster/kv-adapter';
import { UpdateStream } from '@roster/kv-adapter/internal';
import type { LeaderInfo, Role, RoleChangeReason, RosterUpdate, WatchFunction } from './events.js';

/** A listener added with `on` or `once`. */
type Listener = (update: RosterUpdate) => void;

/**
 * What a node shows its users: the leader it follows, the member list, and the stream of updates
 * that tells of every change to them and to the role. Emits only on a real change.
 */
export class NodeView {
  readonly #updates: UpdateStream<RosterUpdate>;
  /** The listeners added by `on` and `once`, in order, for `off`. */
  readonly #listeners: { readonly type: string; readonly fn: Listener; remove: () => void }[] = [];
  #leader: LeaderInfo | undefined;
  #members: { version: number; list: readonly Member[] } = { version: 0, list: [] };
  /** The broadcast member array `#members` was built from. */
  #membersSource: readonly Member[] | undefined;

  constructor(logger: Logger) {
    this.#updates = new UpdateStream<RosterUpdate>(logger);
  }

  get leader(): LeaderInfo | undefined {
    return this.#leader;
  }

  get members(): { readonly version: number; readonly list: readonly Member[] } {
    return this.#members;
  }

  /** True when `id` is in the member list. */
  lists(id: string): boolean {
    const list = this.#members.list;
    const at = indexById(list, id);
    return at < list.length && list[at]!.id === id;
  }

  /** True when the list holds `member` with exactly its weight and priority. */
  listsExactly(member: Member): boolean {
    const list = this.#members.list;
    const at = indexById(list, member.id);
    return at < list.length && sameMember(list[at]!, member);
  }

  /**
   * The place of `id` among the members other than `leaderId`, in the list's order (by id, the
   * same on every node that holds the same list); `undefined` when it is not listed.
   */
  rankOf(id: string, leaderId: string | undefined): number | undefined {
    const list = this.#members.list;
    const at = indexById(list, id);
    if (at >= list.length || list[at]!.id !== id) return undefined;
    return leaderId !== undefined && leaderId < id && this.lists(leaderId) ? at - 1 : at;
  }

  watch(fn: WatchFunction): () => void {
    return this.#updates.watch(fn);
  }

  /** Calls `fn` with every update of type `type` (any string: a type no update has never fires). */
  on<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void {
    return this.#listen(type, fn as Listener, false);
  }

  /** Calls `fn` with the next update of type `type` only. */
  once<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void {
    return this.#listen(type, fn as Listener, true);
  }

  /** Removes the listener of `type` added last with `fn` (by `on` or `once`), as `EventEmitter.off` does. */
  off(type: string, fn: Listener): void {
    for (let i = this.#listeners.length - 1; i >= 0; i--) {
      const entry = this.#listeners[i]!;
      if (entry.type === type && entry.fn === fn) return entry.remove();
    }
  }

  #listen(type: string, fn: Listener, once: boolean): () => void {
    const entry = { type, fn, remove: () => undefined as void };
    const unwatch = this.#updates.watch((u) => {
      if (u.type !== type) return;
      if (once) entry.remove();
      fn(u);
    });
    entry.remove = () => {
      unwatch();
      const at = this.#listeners.indexOf(entry);
      if (at >= 0) this.#listeners.splice(at, 1);
    };
    this.#listeners.push(entry);
    return entry.remove;
  }

  /** The updates from now on: ends after `stopped`, or at once when `signal` aborts (it never rejects). */
  updates(signal?: AbortSignal): AsyncIterableIterator<RosterUpdate> {
    return this.#updates.iterate(signal);
  }

  role(role: Role, previous: Role, reason: RoleChangeReason): void {
    this.#updates.emit({ type: 'role', role, previous, reason });
  }

  /** Follows the leadership of `b` (none when `undefined`); true when that is a change. */
  setLeader(b: Broadcast | undefined): boolean {
    const previous = this.#leader;
    if (b === undefined ? previous === undefined : previous !== undefined && previous.id === b.id && previous.era === b.era && previous.nonce === b.nonce) return false;
    this.#leader = b && { id: b.id, era: b.era, nonce: b.nonce, token: fencingToken(b) };
    this.#updates.emit({ type: 'leader', leader: this.#leader, previous });
    return true;
  }

  /** Tells of the goodbye of the leader followed. */
  goodbye(): void {
    if (this.#leader) this.#updates.emit({ type: 'goodbye', leader: this.#leader });
  }

  /**
   * The broadcast the member list was last taken from (its members in the broadcast's order), when
   * it was given whole: a new leader writes its first list change as a step from it.
   */
  get membersFrom(): Broadcast | undefined {
    return this.#membersFrom;
  }
  #membersFrom: Broadcast | undefined;

  /**
   * Takes the member list of `b` (sorted by id) and tells of it when it changed. One pass over the
   * list when it comes as the leader writes it (the leader, then the others by id), so that a
   * change in a group of thousands costs each node little.
   */
  setMembers(b: Pick<Broadcast, 'version' | 'members'> & Partial<Broadcast>): void {
    if (b.era !== undefined && b.nonce !== undefined && b.id !== undefined) this.#membersFrom = b as Broadcast;
    // A poll that saw only the Version move hands back the same member array: nothing to compare.
    if (b.members === this.#membersSource) {
      this.#members = { version: b.version, list: this.#members.list };
      return;
    }
    this.#membersSource = b.members;
    const list = sortedById(b.members);
    const prev = this.#members.list;
    const { added, removed, same } = compareSorted(prev, list);
    // An unchanged list keeps its array, so that what is memoized on it stays valid.
    if (same) return void (this.#members = { version: b.version, list: prev });
    this.#members = { version: b.version, list };
    this.#updates.emit({ type: 'members', version: b.version, members: list, added, removed });
  }

  /** The last update: the node stopped. */
  stopped(): void {
    this.#updates.emit({ type: 'stopped' });
    this.#updates.close();
  }
}

const byId = (x: Member, y: Member): number => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);

/** The first place in `list` (sorted by id) whose id is not below `id`. */
function indexById(list: readonly Member[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Nodes of one process that share a ListCache hold the same broadcast arrays: what is computed
// from them is computed once. Memos of pure functions, keyed weakly by the arrays.
const sortedMemo = new WeakMap<readonly Member[], Member[]>();
const compareMemo = new WeakMap<readonly Member[], { next: readonly Member[]; result: ReturnType<typeof compareSortedOnce> }>();

/** `members` sorted by id (memoized per array). */
function sortedById(members: readonly Member[]): Member[] {
  let sorted = sortedMemo.get(members);
  if (sorted === undefined) sortedMemo.set(members, (sorted = sortedByIdOnce(members)));
  return sorted;
}

/** {@link compareSortedOnce}, memoized per pair of arrays. */
function compareSorted(prev: readonly Member[], next: readonly Member[]): ReturnType<typeof compareSortedOnce> {
  const memo = compareMemo.get(prev);
  if (memo?.next === next) return memo.result;
  const result = compareSortedOnce(prev, next);
  compareMemo.set(prev, { next, result });
  return result;
}

/** `members` sorted by id: in one pass when all but the first already are (the leader's order). */
function sortedByIdOnce(members: readonly Member[]): Member[] {
  for (let i = 2; i < members.length; i++) if (members[i - 1]!.id >= members[i]!.id) return [...members].sort(byId);
  if (members.length < 2) return [...members];
  const [first, ...rest] = members as [Member, ...Member[]];
  let at = 0;
  while (at < rest.length && rest[at]!.id < first.id) at++;
  rest.splice(at, 0, first);
  return rest;
}

/** What changed from `prev` to `next`, both sorted by id: ids added and removed, and whether nothing did (weights included). */
function compareSortedOnce(prev: readonly Member[], next: readonly Member[]): { added: readonly string[]; removed: readonly string[]; same: boolean } {
  const added: string[] = [];
  const removed: string[] = [];
  let same = prev.length === next.length;
  let i = 0;
  let j = 0;
  while (i < prev.length || j < next.length) {
    const p = prev[i];
    const n = next[j];
    if (n === undefined || (p !== undefined && p.id < n.id)) {
      removed.push(p!.id);
      i++;
    } else if (p === undefined || n.id < p.id) {
      added.push(n.id);
      j++;
    } else {
      if (!sameMember(p, n)) same = false;
      i++;
      j++;
    }
  }
  return { added, removed, same: same && added.length === 0 && removed.length === 0 };
}

import { fencingToken, type Broadcast, type Member } from '@roster/follower';
import { UpdateStream, type Logger } from '@roster/kv-adapter';
import type { LeaderInfo, Role, RoleChangeReason, RosterUpdate, WatchFunction } from './events.js';

/**
 * What a node shows its users: the leader it follows, the member list, and the stream of updates
 * that tells of every change to them and to the role. Emits only on a real change.
 */
export class NodeView {
  readonly #updates: UpdateStream<RosterUpdate>;
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
    // Asked at every step of a follower: answered from the list it last checked while that stands.
    const list = this.#members.list;
    if (this.#listed?.list !== list || this.#listed.id !== id) this.#listed = { list, id, listed: list.some((m) => m.id === id) };
    return this.#listed.listed;
  }
  #listed: { list: readonly Member[]; id: string; listed: boolean } | undefined;

  /**
   * The place of `id` among the members other than `leaderId`, in the list's order (by id, the
   * same on every node that holds the same list); `undefined` when it is not listed.
   */
  rankOf(id: string, leaderId: string | undefined): number | undefined {
    const list = this.#members.list;
    const cached = this.#rank;
    if (cached?.list === list && cached.id === id && cached.leaderId === leaderId) return cached.rank;
    let rank: number | undefined;
    let before = 0;
    for (const m of list) {
      if (m.id === id) {
        rank = before;
        break;
      }
      if (m.id !== leaderId) before++;
    }
    this.#rank = { list, id, leaderId, rank };
    return rank;
  }
  #rank: { list: readonly Member[]; id: string; leaderId: string | undefined; rank: number | undefined } | undefined;

  watch(fn: WatchFunction): () => void {
    return this.#updates.watch(fn);
  }

  on<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void {
    return this.#updates.watch((u) => {
      if (u.type === type) fn(u as Extract<RosterUpdate, { type: T }>);
    });
  }

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

  setMembers(b: Pick<Broadcast, 'version' | 'members'>): void {
    // A poll that saw only the Version move hands back the same member array: nothing to compare.
    if (b.members === this.#membersSource) {
      this.#members = { version: b.version, list: this.#members.list };
      return;
    }
    this.#membersSource = b.members;
    const list = [...b.members].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const prev = this.#members.list;
    const same = prev.length === list.length && prev.every((m, i) => m.id === list[i]?.id && m.weight === list[i]?.weight);
    this.#members = { version: b.version, list };
    if (same) return;
    const before = new Set(prev.map((m) => m.id));
    const after = new Set(list.map((m) => m.id));
    this.#updates.emit({
      type: 'members',
      version: b.version,
      members: list,
      added: [...after].filter((id) => !before.has(id)),
      removed: [...before].filter((id) => !after.has(id)),
    });
  }

  /** The last update: the node stopped. */
  stopped(): void {
    this.#updates.emit({ type: 'stopped' });
    this.#updates.close();
  }
}

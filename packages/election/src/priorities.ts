import type { Member } from '@roster/follower';

/** The members of a list with a priority above 0, highest first: computed once per list. */
const ranked = new WeakMap<readonly Member[], readonly Member[]>();

function byPriority(list: readonly Member[]): readonly Member[] {
  let r = ranked.get(list);
  if (r === undefined) {
    r = list.filter((m) => (m.priority ?? 0) > 0).sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
    ranked.set(list, r);
  }
  return r;
}

/**
 * True when `list` holds a member of higher priority than `priority`, other than `self` and the
 * leader `leaderId` (the one leaving or gone): this node then defers to it (it does not stand on
 * a goodbye, and stands on stillness later than it; see `FollowerRole`). Cheap on a list seen
 * before: a group whose members all have priority 0 answers at once, whatever its size.
 */
export function outranked(list: readonly Member[], self: string, priority: number, leaderId: string | undefined): boolean {
  for (const m of byPriority(list)) {
    if ((m.priority ?? 0) <= priority) return false;
    if (m.id !== self && m.id !== leaderId) return true;
  }
  return false;
}

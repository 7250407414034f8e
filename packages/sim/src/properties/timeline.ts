import type { LeaderInfo, Role } from '@roster/election';
import type { History, Incarnation } from '../history/History.js';

/** What one incarnation showed last, up to some time. */
export interface NodeView {
  readonly incarnation: Incarnation;
  role: Role | undefined;
  leader: LeaderInfo | undefined;
  members: readonly string[];
}

/** Each incarnation's role, leader and member list as of time `at` (inclusive), from its updates. */
export function viewsAt(history: History, at: number): NodeView[] {
  const views = new Map<string, NodeView>(
    history.incarnations.filter((i) => i.startedAt <= at).map((i) => [i.label, { incarnation: i, role: undefined, leader: undefined, members: [] }]),
  );
  for (const entry of history.entries) {
    if (entry.at > at) break;
    if (entry.kind !== 'update') continue;
    const view = views.get(entry.node);
    if (!view) continue;
    const u = entry.update;
    if (u.type === 'role') view.role = u.role;
    else if (u.type === 'leader') view.leader = u.leader;
    else if (u.type === 'members') view.members = u.members.map((m) => m.id);
  }
  return [...views.values()];
}

/** True while `incarnation` runs at `at` (started, not yet crashed or stopped). */
export function aliveAt(incarnation: Incarnation, at: number): boolean {
  return incarnation.startedAt <= at && (incarnation.endedAt === undefined || incarnation.endedAt > at);
}

/** One line per live incarnation: `n2 follower of n1 e3/0 [n1 n2 n3]`. */
export function describeViews(views: readonly NodeView[], at: number): string {
  return views
    .filter((v) => aliveAt(v.incarnation, at))
    .map((v) => {
      const l = v.leader === undefined ? 'no leader' : `leader ${v.leader.id} e${v.leader.era}/n${v.leader.nonce}`;
      return `${v.incarnation.label}${v.incarnation.observer ? ' (observer)' : ''} ${v.role ?? '?'}, ${l}, members [${v.members.join(' ')}]`;
    })
    .join('; ');
}

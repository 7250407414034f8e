import type { Role } from '@roster/election';
import { protocolRole } from '../runtime/Simulation.js';
import type { History, Incarnation } from '../history/History.js';
import { stepEnd } from '../scenario/analysis.js';
import { namesIdKeyOf } from '../scenario/keys.js';
import type { Step } from '../scenario/Scenario.js';
import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';
import { aliveAt, viewsAt } from './timeline.js';

/**
 * No member lost:
 * 1. a leader never drops a member that kept PINGing while the store served its keys: every
 *    removal from a leader's list (other than at the moment it became leader, which inherits the
 *    list it followed) must have a cause within T + 2I before it: the member stopped, crashed,
 *    restarted, was paused or led; the leader was paused; another node led at the same time (its
 *    PONG worker answers the member's PINGs first); or a fault could reach the member's id key or
 *    either node's store (an outage, the id key unavailable, failures or latency, an overloaded
 *    store, or the store losing its data, which erases a PING before the leader reads it);
 * 2. a live member dropped during a fault rejoins by itself: at the end of the run every node
 *    that joined and still runs is listed by the leader.
 */
export const noMemberLost: Property = {
  name: 'no-member-lost',
  summary: 'a leader drops no member that kept PINGing through a healthy store; one dropped in a fault rejoins by itself',
  check(run) {
    const { history } = run;
    const { intervalMs: I, timeoutMs: T } = run.scenario.timing;
    const window = T + 2 * I;
    const steps = history.entries.flatMap((e) => (e.kind === 'step' && e.skipped === undefined ? [{ ...e.step, at: e.at }] : []));
    const byLabel = new Map(history.incarnations.map((i) => [i.label, i]));
    const violations: Violation[] = [];
    for (const inc of history.incarnations) {
      const updates = history.updatesOf(inc.label);
      let role: string | undefined;
      let becameLeaderAt: number | undefined;
      for (const { at, update } of updates) {
        if (update.type === 'role') {
          role = protocolRole(update, role as Role | undefined);
          if (update.role === 'leader') becameLeaderAt = at;
          continue;
        }
        if (update.type !== 'members' || role !== 'leader' || at === becameLeaderAt) continue;
        for (const id of update.removed) {
          const cause = causeOfRemoval(history, steps, byLabel, inc, id, at - window, at);
          if (cause === undefined) {
            violations.push({
              property: 'no-member-lost',
              at,
              message: `leader ${inc.label} dropped ${id}, which kept PINGing through a healthy store for the ${window} ms before`,
            });
          }
        }
      }
    }
    const end = history.end;
    const views = viewsAt(history, end).filter((v) => aliveAt(v.incarnation, end));
    const leader = views.find((v) => v.role === 'leader');
    if (leader) {
      for (const v of views) {
        if (v.incarnation.observer || v.incarnation.startedAt > run.quietAt || leader.members.includes(v.incarnation.id)) continue;
        violations.push({ property: 'no-member-lost', at: end, message: `${v.incarnation.label} runs but leader ${leader.incarnation.label} does not list it at the end: it never rejoined` });
      }
    }
    return violations;
  },
};

/** Why `leader` may have lost `id` in `[from, to]`, or `undefined` when nothing explains it. */
function causeOfRemoval(
  history: History,
  steps: readonly Step[],
  byLabel: ReadonlyMap<string, Incarnation>,
  leader: Incarnation,
  id: string,
  from: number,
  to: number,
): string | undefined {
  const member = [...byLabel.values()].filter((i) => i.id === id && i.startedAt <= to && (i.endedAt === undefined || i.endedAt >= from));
  if (member.length !== 1 || member[0]!.startedAt > from || member[0]!.endedAt !== undefined) return 'it did not run throughout';
  const label = member[0]!.label;
  let role: string | undefined;
  for (const e of history.entries) {
    if (e.at > to) break;
    if (e.kind !== 'update' || e.node !== label || e.update.type !== 'role') continue;
    const next = protocolRole(e.update, role as Role | undefined);
    if (e.at >= from && (role === 'leader' || next === 'leader')) return 'it led';
    role = next;
  }
  if (role === 'leader') return 'it led';
  // A second leader (per-node views) runs PONG workers too: it answers the member's PINGs with
  // PONGs before this leader reads them, so this one sees no fresh PING.
  const roles = new Map<string, string>();
  for (const e of history.entries) {
    if (e.at > to) break;
    if (e.kind !== 'update' || e.update.type !== 'role' || e.node === leader.label) continue;
    // A leader whose lease lapsed (shown as candidate) still runs its PONG workers: it leads here.
    const next = protocolRole(e.update, roles.get(e.node) as Role | undefined);
    if (e.at >= from && (roles.get(e.node) === 'leader' || next === 'leader')) return `${e.node} led too`;
    roles.set(e.node, next);
  }
  if ([...roles.values()].includes('leader')) return 'another node led too';
  const involved = (node: string | undefined) => node === undefined || node === id || node === leader.id;
  for (const s of steps) {
    if (s.at > to || stepEnd(s) < from) continue;
    switch (s.do) {
      case 'stop':
      case 'crash':
      case 'restart':
        if (s.node === id) return `${s.do} ${id}`;
        break;
      case 'pause':
        if (s.node === id || s.node === leader.id) return `${s.node} paused`;
        break;
      case 'storeOutage':
        if (involved(s.node)) return 'store outage';
        break;
      case 'capacity':
        // Every node's operations queue behind everyone's: PINGs are applied late or refused.
        return 'overloaded store';
      case 'connections':
        // The node's PINGs, or the leader's PONGs, refused unsent when the pool is busy.
        if (involved(s.node)) return 'busy connection pool';
        break;
      case 'flush':
        // The store lost the PINGs it held: one erased before the leader read it was never seen.
        return 'the store lost its data';
      case 'keyRollback':
        if (namesIdKeyOf(s.keys, id)) return s.do;
        break;
      case 'keyUnavailable':
      case 'staleRouting':
      case 'failures':
      case 'latency':
        if (involved(s.node) && namesIdKeyOf(s.keys, id)) return s.do;
        break;
      default:
        break;
    }
  }
  return undefined;
}

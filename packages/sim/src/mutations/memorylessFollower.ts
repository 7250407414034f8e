import type { LeaderInfo, RosterUpdate, WatchFunction } from '@roster/election';
import { bestBroadcast, fencingToken, isClaim, isGoodbye, parseBroadcast, type Broadcast } from '@roster/follower';
import type { Timer } from '@roster/kv-adapter';
import type { SimNode } from '../runtime/SimNode.js';
import type { Mutation } from './Mutation.js';

/**
 * A follower without memory: every interval it follows the best broadcast of its latest read of
 * the leader-key window, forgetting the best it has ever seen. When the current leader's nonce
 * cannot be read for a moment and an older leader's broadcast is still at another nonce, it goes
 * back to the older, lower era. (A wrapper around the node as the simulator observes it: the
 * production node keeps the best leadership it has seen, which no store wrapper can undo.)
 */
export const memorylessFollower: Mutation = {
  name: 'memoryless-follower',
  description: 'followers follow the best broadcast of their latest read only, and go back to lower eras',
  rejectedBy: 'monotonic',
  wrapNode(node, kv, context): SimNode {
    const watchers = new Set<WatchFunction>();
    const keys = Array.from({ length: context.window }, (_, n) => `${context.prefix}leader ${n}`);
    let leader: LeaderInfo | undefined;
    let timer: Timer | undefined;
    let stopped = false;
    const emit = (update: RosterUpdate): void => {
      for (const fn of watchers) fn(update);
    };
    const tick = async (): Promise<void> => {
      const values = await Promise.all(keys.map((k) => kv.get(k).catch(() => null)));
      if (stopped) return;
      const seen = values.flatMap((v): Broadcast[] => {
        const parsed = v === null ? undefined : parseBroadcast(v);
        return parsed?.ok && !isClaim(parsed.broadcast) && !isGoodbye(parsed.broadcast) ? [parsed.broadcast] : [];
      });
      const best = bestBroadcast(seen);
      if (best && best.id !== node.id && node.role !== 'leader' && !(leader && leader.id === best.id && leader.era === best.era && leader.nonce === best.nonce)) {
        const previous = leader;
        leader = { id: best.id, era: best.era, nonce: best.nonce, token: fencingToken(best) };
        emit({ type: 'leader', leader, previous });
      }
      timer = context.clock.setTimer(() => void tick(), context.intervalMs);
    };
    const end = (): void => {
      stopped = true;
      timer?.cancel();
    };
    return {
      id: node.id,
      get state() {
        return node.state;
      },
      get role() {
        return node.role;
      },
      get leader() {
        return node.role === 'leader' ? node.leader : leader;
      },
      get memberIds() {
        return node.memberIds;
      },
      isLeader: () => node.isLeader(),
      watch(fn) {
        watchers.add(fn);
        const unwatch = node.watch((u) => {
          if (u.type !== 'leader' || node.role === 'leader' || u.leader?.id === node.id) fn(u);
        });
        return () => {
          watchers.delete(fn);
          unwatch();
        };
      },
      start() {
        timer = context.clock.setTimer(() => void tick(), 0);
        return node.start();
      },
      stop() {
        end();
        return node.stop();
      },
      resign: () => node.resign(),
      destroy() {
        end();
        node.destroy();
      },
    };
  },
};

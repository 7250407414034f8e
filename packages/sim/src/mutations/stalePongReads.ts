import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader whose PONG workers read id keys through a cache that keeps values for 2T: it sees a
 * follower's PING change at most every 2T, so it drops followers that PING all along, and
 * re-admits them when they append again.
 */
export const stalePongReads: Mutation = {
  name: 'stale-pong-reads',
  description: "the leader reads followers' id keys through a cache kept for 2T, and drops live members",
  rejectedBy: 'no-member-lost',
  wrapKV(kv, context) {
    const cache = new Map<string, { value: string | null; at: number }>();
    return overrideKV(kv, {
      get: async (key, options) => {
        if (context.role() !== 'leader' || !key.startsWith(`${context.prefix}id/`)) return kv.get(key, options);
        const now = context.clock.now();
        const hit = cache.get(key);
        if (hit && now - hit.at < 2 * context.timeoutMs) return hit.value;
        const value = await kv.get(key, options);
        cache.set(key, { value, at: now });
        return value;
      },
    });
  },
};

import { parseBroadcast } from '@roster/follower';
import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader that "forgets to re-read the leader key before publishing": while it leads, every
 * broadcast or claim of another node reads as empty to it, so it is never dethroned by reading.
 * Compare-and-set and the lease still stop it (see docs/testing.md).
 */
export const blindLeader: Mutation = {
  name: 'blind-leader',
  description: "while leading, the node does not see other nodes' broadcasts (no re-read before publishing)",
  rejectedBy: 'convergence',
  wrapKV(kv, context) {
    return overrideKV(kv, {
      get: async (key, options) => {
        const value = await kv.get(key, options);
        if (value === null || context.role() !== 'leader' || !key.startsWith(`${context.prefix}leader `)) return value;
        const parsed = parseBroadcast(value);
        return parsed.ok && parsed.broadcast.id !== context.id ? null : value;
      },
    });
  },
};

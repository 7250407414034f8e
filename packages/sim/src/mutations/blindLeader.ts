import { parseBroadcast } from '@roster/follower';
import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader that "forgets to re-read the leader key before publishing": while it leads, every
 * broadcast or claim of another node reads as empty to it, so it is never dethroned by reading.
 * It is still safe (its compare-and-set against the empty value it believes fails, and its lease
 * runs out), but it never learns of the better leadership: it goes on re-validating a lease it
 * cannot get back, its followers are split, and the group never converges. (It once also spun on
 * its failed compare-and-set at one virtual instant; a leader now retries a conflict at once only
 * once in a row.)
 */
export const blindLeader: Mutation = {
  name: 'blind-leader',
  description: "while leading, the node does not see other nodes' broadcasts (no re-read before publishing); the group never converges",
  rejectedBy: 'convergence',
  wrapKV(kv, context) {
    return overrideKV(kv, {
      get: async (key, options) => {
        const value = await kv.get(key, options);
        if (value === null || context.role() !== 'leader' || !key.startsWith(`${context.prefix}leader `)) return value;
        const parsed = parseBroadcast(value);
        return parsed.ok && parsed.broadcast.id !== context.id ? null : value;
      },
      // A leader reads its window by headers (`LeaderWindow.check`): another node's reads as empty.
      getRange: async (key, start, end, options) => {
        const value = await kv.getRange(key, start, end, options);
        if (value === '' || context.role() !== 'leader' || !key.startsWith(`${context.prefix}leader `)) return value;
        const id = value.split(' ', 4)[3];
        return id !== undefined && id !== '' && id !== context.id ? '' : value;
      },
    });
  },
};

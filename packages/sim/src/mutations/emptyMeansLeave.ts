import { parseIdKeyValue } from '@roster/follower';
import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader that takes an id key holding no PING or PONG (empty, or garbage) as the member having
 * left (as if it tested `value !== 'PING …'` instead of `value === 'LEAVE'`): the PONG worker's
 * first round, which reads every nonce of the window, finds the unused nonces empty and removes
 * a member that PINGs all along.
 */
export const emptyMeansLeave: Mutation = {
  name: 'empty-means-leave',
  description: 'the leader reads an empty or unparsable id key as LEAVE, and drops live members',
  rejectedBy: 'no-member-lost',
  wrapKV(kv, context) {
    return overrideKV(kv, {
      get: async (key, options) => {
        const value = await kv.get(key, options);
        if (context.role() !== 'leader' || !key.startsWith(`${context.prefix}id/`)) return value;
        return value !== null && parseIdKeyValue(value) !== undefined ? value : 'LEAVE';
      },
    });
  },
};

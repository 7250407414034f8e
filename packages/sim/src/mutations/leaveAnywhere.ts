import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader that takes a `LEAVE` at any nonce of a member's id key as the member having left, not
 * only at the nonce where the member PINGs (the bug the simulator once found in the real
 * protocol): a `LEAVE` left behind by an earlier run of the same id, which had moved its key to
 * another nonce, removes the node running now again and again.
 */
export const leaveAnywhere: Mutation = {
  name: 'leave-anywhere',
  description: 'the leader honours a LEAVE found at any nonce of an id key, and drops a restarted member for good',
  rejectedBy: 'no-member-lost',
  wrapKV(kv, context) {
    // The leader reads the id key where the member PINGs; every other read there shows the
    // LEAVE found at another nonce, as a leader that looked at every nonce would act on it.
    const flip = new Map<string, boolean>();
    const anywhere = async (key: string, value: string | null): Promise<string | null> => {
      if (context.role() !== 'leader' || !key.startsWith(`${context.prefix}id/`)) return value;
      const base = key.slice(0, key.lastIndexOf(' '));
      let leaveElsewhere = false;
      for (let n = 0; n < 4; n++) if ((await kv.get(`${base} ${n}`).catch(() => null)) === 'LEAVE') leaveElsewhere = true;
      if (!leaveElsewhere) return value;
      const show = !flip.get(key);
      flip.set(key, show);
      return show ? 'LEAVE' : value;
    };
    return overrideKV(kv, {
      get: async (key, options) => anywhere(key, await kv.get(key, options)),
      // The PONG worker learns what its PONG replaced where the member PINGs.
      exchange: async (key, value, options) => anywhere(key, await kv.exchange(key, value, options)),
    });
  },
};

import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A leader that publishes with a plain `SET` (the silent fallback for a store without
 * compare-and-set): its publication overwrites whatever the leader key holds, a rival's claim or
 * a newer leader's broadcast included. A leader whose window read was held up (a stall, then a
 * pause) publishes from what it read before the pause, over its successor's broadcast.
 */
export const publishWithoutCas: Mutation = {
  name: 'publish-without-cas',
  description: "while leading, the node's compare-and-set on the leader key ignores the expected value (a plain SET that always succeeds)",
  rejectedBy: 'monotonic',
  wrapKV(kv, context) {
    return overrideKV(kv, {
      compareAndSet: async (key, expected, value, options) => {
        if (context.role() !== 'leader' || !key.startsWith(`${context.prefix}leader `)) return kv.compareAndSet(key, expected, value, options);
        await kv.set(key, value, options);
        return { swapped: true, current: value };
      },
    });
  },
};

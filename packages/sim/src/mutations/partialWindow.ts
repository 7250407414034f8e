import { KeyUnavailableError } from '@roster/kv-adapter';
import type { Mutation } from './Mutation.js';
import { overrideKV } from './wrapKV.js';

/**
 * A node (`n2`, as if it ran a broken build during a rolling upgrade) whose window loop starts at
 * nonce 1: it never sees nonce 0 of the leader key nor of the era key (to it they read as empty,
 * and its writes there fail as on a dead shard), so it claims and leads at another nonce with an
 * era it computed without the current leader's, and a fencing token below it. (Were nonce 0
 * refused as unavailable instead, the protocol would rightly not claim: a node that knows no era
 * waits while a leader nonce and an era nonce are both unreadable.)
 */
export const partialWindow: Mutation = {
  name: 'partial-window',
  description: 'n2 reads the leader key from nonce 1 on (an off-by-one), and leads with a lower token',
  rejectedBy: 'monotonic',
  wrapKV(kv, context) {
    if (context.id !== 'n2') return kv;
    const blind = new Set([`${context.prefix}leader 0`, `${context.prefix}era 0`]);
    const refuse = (key: string): Promise<never> => Promise.reject(new KeyUnavailableError(key, { reason: 'partial-window mutation' }));
    return overrideKV(kv, {
      get: (key, options) => (blind.has(key) ? Promise.resolve(null) : kv.get(key, options)),
      getRange: (key, start, end, options) => (blind.has(key) ? Promise.resolve('') : kv.getRange(key, start, end, options)),
      compareAndSet: (key, expected, value, options) => (blind.has(key) ? refuse(key) : kv.compareAndSet(key, expected, value, options)),
    });
  },
};

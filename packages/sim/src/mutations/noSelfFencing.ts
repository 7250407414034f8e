import { delegate } from '../runtime/SimNode.js';
import type { Mutation } from './Mutation.js';

/**
 * A leader that never fences itself: `isLeader()` is true for as long as its role in the protocol is leader,
 * whether or not it could publish within the renew deadline (as a leader that does not check its
 * lease before acting would). A leader paused for longer than T still believes it leads while
 * the others elect a new one.
 */
export const noSelfFencing: Mutation = {
  name: 'no-self-fencing',
  description: 'isLeader() ignores the lease: a paused or cut-off leader still believes it leads',
  rejectedBy: 'self-fencing',
  wrapNode(node, _kv, context) {
    return delegate(node, { isLeader: () => context.role() === 'leader' });
  },
};

import type { WatchFunction } from '@roster/election';
import { delegate } from '../runtime/SimNode.js';
import type { Mutation } from './Mutation.js';

/**
 * A node whose updates never tell of a lapsed lease: `isLeader()` turns false at the lease
 * deadline, but the `role` updates (what a sidecar prints, what `@roster/client` and every
 * `watch()` function receive) keep saying `leader`, as they did before leadership was made a
 * user-visible contract. A store outage or a pause leaves users acting on a void lease.
 */
export const silentLapse: Mutation = {
  name: 'silent-lapse',
  description: "a lapsed lease is not told in the node's role updates: subscribers keep seeing leader",
  rejectedBy: 'reported-leadership',
  wrapNode(node) {
    const hidden = (reason: string): boolean => reason === 'lease-expired' || reason === 'store-unavailable' || reason === 'revalidated';
    const watch = (fn: WatchFunction): (() => void) => node.watch((u) => (u.type === 'role' && hidden(u.reason) ? undefined : fn(u)));
    return delegate(node, { watch });
  },
};

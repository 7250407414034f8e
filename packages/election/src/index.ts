/**
 * `@roster/election`: leader election and membership over an unreliable key-value store, by the
 * era/nonce/version protocol (docs/protocol.md). One entry point, {@link createNode}.
 *
 * **Guarantees** (see docs/protocol.md): with the defaults I = 1 s and T = 5 s, a crashed leader
 * is replaced within T + 2I; after faults stop, every live node converges on one leader and the
 * full member list; with compare-and-set (required), a view of the store shared by all nodes and a
 * store that keeps its writes, no two nodes believe they lead at once (a leader fences itself
 * after the renew deadline, T/2 by default).
 *
 * @packageDocumentation
 */
export { createNode, type CreateNodeOptions } from './createNode.js';
export type { RosterNode, NodeState } from './node.js';
export type { Leadership, LeaderWorkFunction } from './LeaderWork.js';
export { checkNodeOptions, type NodeSettings, type RosterNodeOptions } from './config.js';
export { NodeStateError, LeadershipLostError } from './errors.js';
export type {
  Role,
  LeaderInfo,
  LeadershipLossReason,
  RoleChangeReason,
  RoleUpdate,
  LeaderUpdate,
  MembersUpdate,
  GoodbyeUpdate,
  StoppedUpdate,
  RosterUpdate,
  WatchFunction,
} from './events.js';
export { fencingToken, ListCache, MAX_PRIORITY, priorityFromVersion, type Member, type Broadcast } from '@roster/follower';

import type { NodeRole } from './wire.js';

/** A node's role, as the daemon reports it. */
export type DaemonRole = NodeRole;

/** The leadership the daemon's node follows (or holds). */
export interface DaemonLeader {
  /** The leader's node id. */
  readonly id: string;
  /** The election era of this leadership. */
  readonly era: number;
  /** The leader-key nonce it was declared at. */
  readonly nonce: number;
  /**
   * The fencing token: strictly greater for every later leadership. A `bigint`, because it may
   * exceed 2^53.
   */
  readonly token: bigint;
}

/** A machine joined the member list ("a machine added to the list"). */
export interface AddUpdate {
  readonly type: 'add';
  /** The id of the member. */
  readonly id: string;
}

/** A machine left the member list ("a machine deleted from the list"). */
export interface DeleteUpdate {
  readonly type: 'delete';
  /** The id of the member. */
  readonly id: string;
}

/**
 * The leader the daemon followed is gone: it resigned, died, or another node took over (typed
 * watch updates say goodbye before changing leaders). Always followed by a {@link LeaderUpdate}
 * giving the new leader, or `undefined` while none is known. Not emitted when the same node is
 * elected again in a new era.
 */
export interface GoodbyeUpdate {
  readonly type: 'goodbye';
  /** The leader that is gone. */
  readonly leader: DaemonLeader;
}

/** The leadership changed: another leader, the same one in a new era, or none. */
export interface LeaderUpdate {
  readonly type: 'leader';
  /** The leader now; `undefined` while none is known. */
  readonly leader: DaemonLeader | undefined;
}

/**
 * The daemon's own node changed role (e.g. it became the leader). `leader` means the node may act
 * as leader now: a leader whose lease lapsed (its store dead or slow, its process paused) is
 * reported as `candidate` by its lease deadline, and as `leader` again once the lease is
 * re-validated (docs/cli.md, "the leadership contract").
 */
export interface RoleUpdate {
  readonly type: 'role';
  readonly role: DaemonRole;
}

/** The link to the daemon is up; the state updates of its snapshot follow. */
export interface ConnectedUpdate {
  readonly type: 'connected';
}

/**
 * The link to the daemon is down (it stopped, died, or the client was closed). `leader` and
 * `members` keep their last known values until the link is back; the role is unknown
 * (`client.role` is `undefined`): stop leader-only work here, and start it again on a `role`
 * update to `leader`.
 */
export interface DisconnectedUpdate {
  readonly type: 'disconnected';
  /** Why, for people: `"the daemon stopped"`, `"connect ECONNREFUSED 127.0.0.1:8080"`, `"closed"`, … */
  readonly reason: string;
}

/**
 * Every update a {@link DaemonClient} delivers to its watch functions and iterators. The state
 * updates (`add`, `delete`, `goodbye`, `leader`, `role`) are differences from what the client knew
 * before, so nothing is repeated after a reconnection.
 */
export type DaemonUpdate = AddUpdate | DeleteUpdate | GoodbyeUpdate | LeaderUpdate | RoleUpdate | ConnectedUpdate | DisconnectedUpdate;

/** A function installed with `watch()`. */
export type WatchFunction = (update: DaemonUpdate) => void;

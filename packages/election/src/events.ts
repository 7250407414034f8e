import { type Member } from '@roster/follower';

/**
 * A node's role, as users are told it. `leader` means "may act as leader now": a leader whose
 * lease lapsed (a pause, a slow or dead store) is shown as `candidate` from its lease deadline
 * until it re-validates the lease (back to `leader`, reason `revalidated`) or leaves leadership.
 */
export type Role = 'follower' | 'candidate' | 'leader' | 'observer';

/** The leadership a node follows (or holds). */
export interface LeaderInfo {
  /** The leader's node id. */
  readonly id: string;
  /** The election era of this leadership. */
  readonly era: number;
  /** The leader-key nonce at which the leader declared itself. */
  readonly nonce: number;
  /** The fencing token: strictly increases from one leader to the next (see `fencingToken`). */
  readonly token: bigint;
}

/**
 * Why a leader stopped leading:
 * - `dethroned`: a better leadership (higher Era, or the same Era at a lower Nonce) was seen;
 * - `lease-expired`: the lease ran out because the process did not run (a pause, a stalled loop);
 * - `store-unavailable`: the lease ran out while publications failed (the store did not answer);
 * - `resigned`: it handed leadership over on purpose;
 * - `stopped`: `stop()` was called (the node says goodbye);
 * - `destroyed`: `destroy()` was called (no goodbye).
 */
export type LeadershipLossReason = 'dethroned' | 'lease-expired' | 'store-unavailable' | 'resigned' | 'stopped' | 'destroyed';

/**
 * Why the role changed:
 * - to candidate: `stale` (the leader's Version stood still for T), `goodbye` (the leader resigned),
 *   `pong-timeout` (no PONG for T); from leader, `lease-expired` or `store-unavailable` (its lease
 *   lapsed: it may no longer act as leader, and re-validates the lease);
 * - to leader: `confirmed` (the claim was the best and everything else stood still for T),
 *   `revalidated` (a lapsed lease holds again: a fresh `leadership` signal);
 * - to follower from candidate: `better-leader-seen`, `claim-lost` (the claim was overwritten),
 *   `claim-race-lost` (another claim was written first), `claim-unconfirmed` (no confirmation
 *   within T + I);
 * - to follower from leader: a {@link LeadershipLossReason}.
 */
export type RoleChangeReason =
  | 'stale'
  | 'goodbye'
  | 'pong-timeout'
  | 'confirmed'
  | 'better-leader-seen'
  | 'claim-lost'
  | 'claim-race-lost'
  | 'claim-unconfirmed'
  /** No nonce of the leader key could be read, and nothing new was seen for T. */
  | 'unreachable'
  /**
   * A candidate that stood blind (`unreachable`, or on stillness seen across a store outage) can
   * read again and sees the leadership alive.
   */
  | 'leader-alive'
  /** To leader: a lapsed lease (shown as `candidate`, reason `lease-expired` or `store-unavailable`) holds again. */
  | 'revalidated'
  | LeadershipLossReason;

/**
 * The role changed. Sent no later than the moment the change holds: a leader's lease lapses by
 * its deadline, and whoever reads `role`, `isLeader()` or `leadership` at any instant finds them
 * agreeing with the last of these updates.
 */
export interface RoleUpdate {
  readonly type: 'role';
  readonly role: Role;
  readonly previous: Role;
  /** Why (see {@link RoleChangeReason}). */
  readonly reason: RoleChangeReason;
}

/** The leader this node follows (or is) changed; `leader` is `undefined` while there is none. */
export interface LeaderUpdate {
  readonly type: 'leader';
  readonly leader: LeaderInfo | undefined;
  readonly previous: LeaderInfo | undefined;
}

/** The member list this node sees changed. */
export interface MembersUpdate {
  readonly type: 'members';
  /** The broadcast Version the list comes from. */
  readonly version: number;
  /** Every member, sorted by id. */
  readonly members: readonly Member[];
  /** Ids that joined since the last update. */
  readonly added: readonly string[];
  /** Ids that left since the last update. */
  readonly removed: readonly string[];
}

/** The leader said goodbye: it resigned; a new election follows at once. */
export interface GoodbyeUpdate {
  readonly type: 'goodbye';
  readonly leader: LeaderInfo;
}

/** The node stopped; the last update it emits. */
export interface StoppedUpdate {
  readonly type: 'stopped';
}

/** Every update a node emits, as `watch()` and `updates()` deliver them. */
export type RosterUpdate = RoleUpdate | LeaderUpdate | MembersUpdate | GoodbyeUpdate | StoppedUpdate;

/** A function installed with `watch()`. */
export type WatchFunction = (update: RosterUpdate) => void;

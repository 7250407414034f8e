import type { Member } from '@roster/follower';

/** A node's role in the protocol. */
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

/** The role changed. */
export interface RoleUpdate {
  readonly type: 'role';
  readonly role: Role;
  readonly previous: Role;
  /** Why, e.g. `"stale"`, `"confirmed"`, `"dethroned"`, `"lease-expired"`, `"stopped"`. */
  readonly reason: string;
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

/** The leader said goodbye (seed 000): it resigned; a new election follows at once. */
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

/** A function installed with `watch()` (seed 000's watch functions). */
export type WatchFunction = (update: RosterUpdate) => void;

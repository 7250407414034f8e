/**
 * The wire contract of a `roster node`'s `/events` stream (and of `roster node --json`): one JSON
 * object per line (docs/cli.md). Types only: this module has no runtime code, so the command
 * line that writes these lines and the client that reads them share one definition without the
 * client depending on anything at run time.
 *
 * New fields and event types may be added; none is removed or renamed. A reader ignores event
 * types it does not know.
 *
 * @packageDocumentation
 */

/** A node's role, as the stream reports it. */
export type NodeRole = 'follower' | 'candidate' | 'leader' | 'observer';

/** Fields every line carries. */
export interface NodeEventBase {
  /** When the node saw it, in milliseconds since the epoch. */
  readonly ts: number;
  /** The id of the node that prints the line. */
  readonly id: string;
}

/** The node's role changed. */
export interface RoleEvent extends NodeEventBase {
  readonly event: 'role';
  readonly role: NodeRole;
  /** The role before; `null` on the first line, which gives the role the node starts in. */
  readonly previous: NodeRole | null;
  /** Why: `"stale"`, `"confirmed"`, `"dethroned"`, `"lease-expired"`, `"stopped"`, … */
  readonly reason: string;
}

/** The leader this node follows (or is) changed; every field is `null` while it knows of none. */
export interface LeaderEvent extends NodeEventBase {
  readonly event: 'leader';
  readonly leader: string | null;
  readonly era: number | null;
  readonly nonce: number | null;
  /** The fencing token as a decimal string (it can exceed 2^53). */
  readonly token: string | null;
}

/** The member list this node sees changed. */
export interface MembersEvent extends NodeEventBase {
  readonly event: 'members';
  /** The broadcast Version the list comes from. */
  readonly version: number;
  /** Every member id, sorted. */
  readonly members: readonly string[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/** The node stopped gracefully; always the last line. */
export interface StoppedEvent extends NodeEventBase {
  readonly event: 'stopped';
}

/** One line of the stream. */
export type NodeEvent = RoleEvent | LeaderEvent | MembersEvent | StoppedEvent;

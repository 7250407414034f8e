import type { NodeSettings, Role } from '@roster/election';

/** A `KV` operation, as `store_operations_total` labels it. */
export type StoreOperation = 'get' | 'set' | 'delete' | 'append' | 'take' | 'getRange' | 'exchange' | 'compareAndSet' | 'time';

/**
 * Why a store operation failed, as `store_errors_total` labels it:
 * - `key_unavailable`: this key cannot be served (`KV_KEY_UNAVAILABLE`); the protocol moves the nonce;
 * - `store_unavailable`: the store cannot be reached (`KV_STORE_UNAVAILABLE`);
 * - `timeout`: the store did not answer in time (a command timeout, or an answer that came after
 *   the node's operation deadline, when the node had given up on it);
 * - `malformed_value`: a value the protocol cannot parse, or one over the size limit;
 * - `other`: anything else (a rejected command, a closed client).
 */
export type StoreErrorKind = 'key_unavailable' | 'store_unavailable' | 'timeout' | 'malformed_value' | 'other';

/**
 * Which of a group's compound keys (docs/protocol.md), as `nonce_moves_total` labels it: the
 * leader key, the join key, the era key, a follower's id key, or another key.
 */
export type KeyKind = 'leader' | 'join' | 'era' | 'id' | 'other';

/** How an election this node stood in ended: it leads, or it went back to following. */
export type ElectionOutcome = 'won' | 'lost';

/**
 * The metrics seam: what a Roster node reports, as calls a recorder can count. It is fed from
 * outside the node: by `watchNodeMetrics` from the node's public API, and by an `InstrumentedKV`
 * around the node's store. {@link PromRosterMetrics} implements it on a prom-client registry;
 * another metrics system implements it itself (no Prometheus dependency in the seam). Every
 * method must return quickly and never throw. {@link noopMetrics} records nothing.
 */
export interface RosterMetrics {
  /**
   * The node these metrics are of, by its `node.settings`: told once, before anything else (a
   * recorder that labels its series by node or group takes the labels from here).
   */
  settings(settings: NodeSettings): void;
  /** The node's role is now `role`. */
  role(role: Role): void;
  /** The node follows (or holds) this leadership now; `undefined` while it knows of none. */
  leader(leader: { readonly era: number; readonly token: bigint } | undefined): void;
  /** The member list the node sees now: how many, and the broadcast Version it comes from. */
  members(count: number, version: number): void;
  /** An election this node stood in ended. */
  election(outcome: ElectionOutcome): void;
  /** One store operation ended, after `seconds`: successfully (`error` undefined) or with `error`. */
  storeOperation(operation: StoreOperation, seconds: number, error: StoreErrorKind | undefined): void;
  /** The node read `count` values it could not parse (the store answered; the value was garbage). */
  malformedValues(count: number): void;
  /** One PONG round trip of this follower (a PING written → its PONG found), in seconds. */
  pongRoundTrip(seconds: number): void;
  /** The node wrote a compound key of `kind` at another nonce than its last write to it (the key had been unavailable). */
  nonceMove(kind: KeyKind): void;
  /**
   * At the leader: `count` more publications whose compare-and-set met another value than the
   * leader's own last write, so that its next renewal reads the leader key whole instead of going
   * on from what it wrote (client-go's "slow path").
   */
  slowRenewals(count: number): void;
  /**
   * At the leader: every follower's reported PONG round trip in ms, by member id (an empty map
   * elsewhere; `node.pongRoundTrips()`). Replaces what was given before.
   */
  memberPongRoundTrips(pongRoundTrips: ReadonlyMap<string, number>): void;
}

/** A {@link RosterMetrics} that records nothing: the default wherever metrics are optional. */
export const noopMetrics: RosterMetrics = Object.freeze({
  settings() {},
  role() {},
  leader() {},
  members() {},
  election() {},
  storeOperation() {},
  malformedValues() {},
  pongRoundTrip() {},
  nonceMove() {},
  slowRenewals() {},
  memberPongRoundTrips() {},
});

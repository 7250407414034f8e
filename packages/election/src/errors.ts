/**
 * Typed errors of `@roster/election`. Each is a `RosterError` from `@roster/kv-adapter` with a
 * literal `code`; match on the code or use the static `is` guards, which work across duplicate
 * copies of the package. Invalid options raise kv-adapter's `ConfigError` (code `CONFIG_INVALID`).
 *
 * @packageDocumentation
 */
import { RosterError } from '@roster/kv-adapter';
import type { LeadershipLossReason } from './events.js';

/** A lifecycle call the node cannot honour in its state, e.g. `start()` after `stop()`. */
export class NodeStateError extends RosterError {
  /** The node's lifecycle state when the call came. */
  readonly state: string;
  constructor(nodeId: string, action: string, state: string) {
    super('NODE_STATE', `election: node ${nodeId} cannot ${action}: it is ${state}`);
    this.state = state;
  }
  /** True when `error` is a {@link NodeStateError} from any copy of this package. */
  static override is(error: unknown): error is NodeStateError {
    return RosterError.is(error, 'NODE_STATE');
  }
}

/**
 * Leadership ended; the reason the leadership signal (`node.leadership`) carries when it aborts.
 * `reason` says why (see {@link LeadershipLossReason}).
 */
export class LeadershipLostError extends RosterError {
  /** Why leadership ended. */
  readonly reason: LeadershipLossReason;
  constructor(reason: LeadershipLossReason) {
    super('LEADERSHIP_LOST', `election: leadership lost (${reason})`);
    this.reason = reason;
  }
  /** True when `error` is a {@link LeadershipLostError} from any copy of this package. */
  static override is(error: unknown): error is LeadershipLostError {
    return RosterError.is(error, 'LEADERSHIP_LOST');
  }
}

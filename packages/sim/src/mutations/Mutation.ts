import type { Clock, KV } from '@roster/kv-adapter';
import type { Role } from '@roster/election';
import type { PropertyName } from '../properties/Property.js';
import type { SimNode } from '../runtime/SimNode.js';

/** What a mutation knows of the node it is applied to. */
export interface MutationContext {
  /** The node's id. */
  readonly id: string;
  /** The node's clock (pausable view of the shared virtual clock). */
  readonly clock: Clock;
  /** The cluster's key prefix, e.g. `roster/sim/chaos/`. */
  readonly prefix: string;
  /** The protocol's interval. */
  readonly intervalMs: number;
  /** The protocol's timeout. */
  readonly timeoutMs: number;
  /** The compound keys' nonce window. */
  readonly window: number;
  /**
   * The node's role in the protocol now, from its updates (`undefined` before the first): a
   * leader whose lease lapsed is shown to users as `candidate`, but goes on as leader (it
   * re-validates its lease), so it is `leader` here.
   */
  role(): Role | undefined;
}

/**
 * A deliberately broken variant of the protocol, injected from outside the production code: a
 * wrapper around the node's store, or around the node as the simulator observes it. Each exists to
 * show that one property catches a real class of bug.
 */
export interface Mutation {
  /** Short name, used on the command line (`pnpm chaos --mutation <name>`). */
  readonly name: string;
  /** The bug it emulates, in one sentence. */
  readonly description: string;
  /** The property that must reject it. */
  readonly rejectedBy: PropertyName;
  /** Wraps the node's store (it sits between the node and its fault-injecting view). */
  wrapKV?(kv: KV, context: MutationContext): KV;
  /** Wraps the node as the simulator observes it. */
  wrapNode?(node: SimNode, kv: KV, context: MutationContext): SimNode;
}

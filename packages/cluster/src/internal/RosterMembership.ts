import { createNode, type LeaderInfo, type Member, type RosterNode } from '@roster/election';
import { connectStore, redactStoreUrl, type KV } from '@roster/kv-adapter';
import type { ResolvedClusterOptions } from '../options.js';

/** What the membership reports: the member list, and the generation it comes from. */
export interface MembershipView {
  readonly members: readonly Member[];
  readonly generation: bigint | undefined;
}

const VERSION_BITS = 53n;

/**
 * Dynamic clustering: this instance as a member of a Roster group whose member weight is its
 * thread count. Owns the store when it was given as a URL (connects it on start, closes it on
 * stop); reports every change of the member list to `onChange`.
 */
export class RosterMembership {
  readonly #options: ResolvedClusterOptions;
  readonly #store: string | KV;
  readonly #onChange: (view: MembershipView) => void;
  #kv: KV | undefined;
  #owned = false;
  #node: RosterNode | undefined;
  #generation: bigint | undefined;

  constructor(options: ResolvedClusterOptions, store: string | KV, onChange: (view: MembershipView) => void) {
    this.#options = options;
    this.#store = store;
    this.#onChange = onChange;
  }

  /** The Roster node, once started. */
  get node(): RosterNode | undefined {
    return this.#node;
  }

  /** The leadership the node follows or holds (its `token` is a fencing token). */
  get leader(): LeaderInfo | undefined {
    return this.#node?.leader;
  }

  /**
   * The generation of the member list the node holds now: `leader fencing token × 2^53 + the
   * broadcast Version it was read from`, refreshed by every broadcast the node reads (so it grows
   * every interval even when the list does not change), never going back. A list published after
   * another always has a higher generation on every instance than the earlier one on any instance.
   */
  get generation(): bigint | undefined {
    const node = this.#node;
    const leader = node?.leader;
    if (node !== undefined && leader !== undefined) {
      const now = (leader.token << VERSION_BITS) + BigInt(node.members.version);
      if (this.#generation === undefined || now > this.#generation) this.#generation = now;
    }
    return this.#generation;
  }

  /** Where the instances meet, for logs (passwords redacted). */
  get where(): string {
    return typeof this.#store === 'string' ? redactStoreUrl(this.#store) : this.#store.name;
  }

  /**
   * Connects the store (when given as a URL), creates the node and starts it; resolves after the
   * node's first read of the leader key. On failure nothing is left running.
   */
  async start(signal: AbortSignal): Promise<void> {
    const { group, env, id, threads, intervalMs, timeoutMs, clock, logger } = this.#options;
    if (typeof this.#store === 'string') {
      this.#kv = await connectStore(this.#store, { clock, logger, signal });
      this.#owned = true;
    } else {
      this.#kv = this.#store;
    }
    const node = createNode({ store: this.#kv, group, env, id, weight: threads, intervalMs, timeoutMs, clock, logger });
    this.#node = node;
    node.on('members', (update) => this.#onChange({ members: update.members, generation: this.generation }));
    try {
      await node.start();
    } catch (error) {
      node.destroy();
      await this.#closeStore();
      throw error;
    }
  }

  /** Leaves gracefully: the node says goodbye or LEAVE (bounded by one operation timeout). */
  async stop(): Promise<void> {
    await this.#node?.stop();
    await this.#closeStore();
  }

  /** Stops at once, without a word to the cluster: a crash as the other instances see it. */
  destroy(): void {
    this.#node?.destroy();
    void this.#closeStore();
  }

  async #closeStore(): Promise<void> {
    const kv = this.#kv;
    this.#kv = undefined;
    if (kv && this.#owned) await kv.close().catch((error: unknown) => this.#options.logger.warn({ err: error }, 'cluster: could not close the store'));
  }
}

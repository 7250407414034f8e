import { CompoundKey, Namespace, type CompoundKeyOptions } from '@roster/kv-adapter';

/**
 * The compound keys of one cluster, all under the cluster's {@link Namespace}:
 *
 * | key | value | written by |
 * |---|---|---|
 * | `<prefix>leader <n>` | the broadcast `Era Nonce Version Id member…` | the leader; candidates' claims |
 * | `<prefix>join <n>` | ` id id:weight …`, appended | joining followers; taken by the leader |
 * | `<prefix>id/<id> <n>` | `PING <seq>`, `PONG <seq>` or `LEAVE` | the follower `<id>` and the leader |
 * | `<prefix>era <n>` | the era of the latest election, a decimal integer | each new leader, once |
 * | `<prefix>list/<era>/<nonce>/<id>/<epoch>` | the step to that list from an earlier one (`ListStep`), expiring | the leader, at each list change |
 */
export class RosterKeys {
  /** The namespace the keys live in. */
  readonly namespace: Namespace;
  /** How many nonces each compound key may use. */
  readonly window: number;
  readonly #options: CompoundKeyOptions;

  /** `options.timeoutsMove` applies to every compound key handed out (see `CompoundKeyOptions`). */
  constructor(namespace: Namespace, window: number, options: Pick<CompoundKeyOptions, 'timeoutsMove'> = {}) {
    this.namespace = namespace;
    this.window = window;
    this.#options = { window, ...(options.timeoutsMove && { timeoutsMove: options.timeoutsMove }) };
  }

  /** A fresh handle on the leader key, at nonce 0. */
  leader(): CompoundKey {
    return new CompoundKey(this.namespace.key('leader'), this.#options);
  }

  /** A fresh handle on the join key, at nonce 0. */
  join(): CompoundKey {
    return new CompoundKey(this.namespace.key('join'), this.#options);
  }

  /**
   * A fresh handle on the era key, at nonce 0: a second record of the highest era, on another key
   * (so, in Redis Cluster, usually another shard) than the leader key, read by candidates so that
   * a leader key made unavailable cannot hide the era they must exceed.
   */
  era(): CompoundKey {
    return new CompoundKey(this.namespace.key('era'), this.#options);
  }

  /**
   * The key of the step that leads to the list `to` (see `ListStep`). A plain key, not a compound
   * one: a step that cannot be read is only a missed shortcut (the reader reads the whole
   * broadcast), so it never moves to another nonce.
   */
  listStep(to: { readonly era: number; readonly nonce: number; readonly id: string; readonly epoch: number }): string {
    return this.namespace.key(`list/${to.era}/${to.nonce}/${to.id}/${to.epoch}`);
  }

  /** A fresh handle on the id key of node `id`, at nonce 0. */
  idKey(id: string): CompoundKey {
    return new CompoundKey(this.namespace.key(`id/${id}`), this.#options);
  }
}

/**
 * The operations of one client waiting for a connection of its pool, in two lanes: the urgent ones
 * (`KVOperationOptions.urgent`: a leader's lease renewal) and the others. The next to be served is
 * the newest urgent waiter, else the newest of the others (an adaptive LIFO, as in Facebook's
 * "Fail at Scale": see {@link LifoGate}). Shared by the database stores' gate and etcd's
 * connections, which differ in how a served waiter takes its connection.
 */
export class WaitLanes<W> {
  /** Each lane oldest first. */
  readonly #others: W[] = [];
  readonly #urgent: W[] = [];

  /** How many wait. */
  get size(): number {
    return this.#others.length + this.#urgent.length;
  }

  /** Adds `waiter`, the newest of its lane. */
  add(waiter: W, urgent: boolean): void {
    (urgent ? this.#urgent : this.#others).push(waiter);
  }

  /** Removes `waiter` (its last place, if it was added twice); false when it does not wait. */
  remove(waiter: W): boolean {
    for (const lane of [this.#urgent, this.#others]) {
      const at = lane.lastIndexOf(waiter);
      if (at !== -1) {
        lane.splice(at, 1);
        return true;
      }
    }
    return false;
  }

  /** The waiter to serve next, left in place: the newest urgent one, else the newest other. */
  next(): W | undefined {
    return this.#urgent.at(-1) ?? this.#others.at(-1);
  }

  /** Every waiter, urgent ones first. */
  all(): W[] {
    return [...this.#urgent, ...this.#others];
  }
}

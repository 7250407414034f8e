/** Counters of what a node did, by name (e.g. `leader.read`, `publish`, `ping`, `garbage`). */
export class NodeStats {
  readonly #counts = new Map<string, number>();

  /** Adds `n` to the counter `name`. */
  count(name: string, n = 1): void {
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + n);
  }

  /** A copy of every counter. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }
}

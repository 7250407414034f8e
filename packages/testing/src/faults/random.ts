/**
 * A small seeded pseudo-random source (mulberry32): the same seed always gives the same
 * sequence of numbers. Good enough to pick faults and delays reproducibly; not for cryptography.
 *
 * @example
 * ```ts
 * const a = new SeededRandom(42);
 * const b = new SeededRandom(42);
 * a.next() === b.next(); // true
 * ```
 */
export class SeededRandom {
  #state: number;

  /** @param seed - any integer; only its low 32 bits are used. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** The next number, uniform in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer uniform in `min … max` (both included; both integers, `min <= max`). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p` (0 never, 1 always). Draws one number whatever `p` is. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

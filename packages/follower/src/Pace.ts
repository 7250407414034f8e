import type { Clock, KV } from '@roster/kv-adapter';

/** Options of {@link Pace}. */
export interface PaceOptions {
  /**
   * The longest mean round trip the node's loops keep their pace at (`@roster/election`'s
   * `paceRoundTripMs`, τ/2): up to it, {@link Pace.factor} is 1.
   */
  readonly paceRoundTripMs: number;
  /**
   * The operation timeout τ: a round trip longer than this counts as τ (it timed out for the
   * caller), and a mean of τ is the slowest pace, {@link MAX_PACE}.
   */
  readonly operationTimeoutMs: number;
}

/** The slowest pace: {@link Pace.factor} when every operation times out. */
export const MAX_PACE = 4;

/**
 * How much slower than its normal pace a node runs the loops that can wait (its PINGs, polls,
 * join retries, candidacies), from the round trips it observes on the store: 1 while the mean
 * round trip stays within `paceRoundTripMs` (τ/2), rising linearly to {@link MAX_PACE} as it reaches
 * the operation timeout τ. Below τ/2 operations do not time out, and a loaded but working store
 * (a few ms to tens of ms) changes nothing; from there on, operations start to fail.
 *
 * A store slowed down (a loaded server, a busy client process, added latency) answers later and
 * later; nodes that keep their pace then keep as many requests in flight, which is how a slow store
 * becomes a dead one. Each node backs off on its own observations, and speeds up again as its
 * round trips fall. What counts:
 *
 * - every operation that was answered, by its round trip (a late answer counts, whether or not
 *   the caller still waited for it);
 * - every failure that came after τ or later (a timeout), as τ;
 * - not a failure that came sooner (a refused connection, a key known unavailable): a store that
 *   is down costs nothing to ask, and a node must find it back at its normal pace.
 *
 * The mean is an exponentially weighted moving average, weight 1/8 per operation: a node issues
 * a few operations per interval, so a slowdown lasting a couple of intervals moves it, and a
 * recovered store brings the factor from its maximum to 1 within about six quick round trips.
 * Deterministic: no randomness, no clock of its own (see {@link watchRoundTrips}).
 */
export class Pace {
  readonly #paceRoundTripMs: number;
  readonly #timeoutMs: number;
  #mean: number | undefined;

  constructor(options: PaceOptions) {
    this.#timeoutMs = Math.max(1, options.operationTimeoutMs);
    this.#paceRoundTripMs = Math.min(Math.max(0, options.paceRoundTripMs), this.#timeoutMs / 2);
  }

  /** The mean round trip observed (ms), `undefined` before the first. */
  get meanRoundTripMs(): number | undefined {
    return this.#mean;
  }

  /**
   * Whether the store answers this node slowly as a whole: its mean round trip is above
   * `paceRoundTripMs` (the factor is above 1). A timeout then says nothing of the key it was on,
   * and writers stay at their nonce (`CompoundKeyOptions.timeoutsMove`).
   */
  get slow(): boolean {
    return this.factor > 1;
  }

  /** How many times slower than normal the node's paced loops run: 1 on a healthy store, at most {@link MAX_PACE}. */
  get factor(): number {
    if (this.#mean === undefined || this.#mean <= this.#paceRoundTripMs) return 1;
    return 1 + ((MAX_PACE - 1) * (this.#mean - this.#paceRoundTripMs)) / (this.#timeoutMs - this.#paceRoundTripMs);
  }

  /** An operation answered after `ms`. */
  answered(ms: number): void {
    this.#sample(Math.min(Math.max(0, ms), this.#timeoutMs));
  }

  /** An operation failed after `ms`: a timeout (τ or later) counts as τ, a quicker failure not at all. */
  failed(ms: number): void {
    if (ms >= this.#timeoutMs) this.#sample(this.#timeoutMs);
  }

  #sample(ms: number): void {
    this.#mean = this.#mean === undefined ? ms : this.#mean + (ms - this.#mean) / 8;
  }
}

/**
 * `kv` as seen by a node whose {@link Pace} learns from every operation: each one is timed on
 * `clock` from its call until the store's answer or failure (not until the caller gave up: a late
 * answer is what a slow store looks like). Everything else passes through unchanged.
 */
export function watchRoundTrips(kv: KV, pace: Pace, clock: Clock): KV {
  const timed = <R>(call: () => Promise<R>): Promise<R> => {
    const startedAt = clock.now();
    const result = call();
    result.then(
      () => pace.answered(clock.now() - startedAt),
      () => pace.failed(clock.now() - startedAt),
    );
    return result;
  };
  return {
    name: kv.name,
    get capabilities() {
      return kv.capabilities;
    },
    get: (key, options) => timed(() => kv.get(key, options)),
    set: (key, value, options) => timed(() => kv.set(key, value, options)),
    delete: (key, options) => timed(() => kv.delete(key, options)),
    append: (key, value, options) => timed(() => kv.append(key, value, options)),
    take: (key, options) => timed(() => kv.take(key, options)),
    getRange: (key, start, end, options) => timed(() => kv.getRange(key, start, end, options)),
    exchange: (key, value, options) => timed(() => kv.exchange(key, value, options)),
    compareAndSet: (key, expected, value, options) => timed(() => kv.compareAndSet(key, expected, value, options)),
    time: (options) => timed(() => kv.time(options)),
    close: () => kv.close(),
  };
}

import type { Clock, Timer } from '../clock/Clock.js';

/**
 * A deadline on the local monotonic clock: calls `onExpire` once, `durationMs` after the reference
 * reading given to {@link arm}, unless re-armed or cancelled first. Only local durations are
 * measured; the store's clock never enters.
 */
export class LocalDeadline {
  readonly #clock: Clock;
  readonly #durationMs: number;
  readonly #onExpire: () => void;
  #timer: Timer | undefined;

  constructor(clock: Clock, durationMs: number, onExpire: () => void) {
    this.#clock = clock;
    this.#durationMs = durationMs;
    this.#onExpire = onExpire;
  }

  /** True while the deadline is set and has not passed. */
  get armed(): boolean {
    return this.#timer !== undefined;
  }

  /** Sets the deadline to `reference + durationMs` (local clock readings), replacing any other. */
  arm(reference: number): void {
    this.cancel();
    const timer = this.#clock.setTimer(() => {
      if (this.#timer !== timer) return;
      this.#timer = undefined;
      this.#onExpire();
    }, reference + this.#durationMs - this.#clock.now());
    this.#timer = timer;
  }

  /** Removes the deadline. */
  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}

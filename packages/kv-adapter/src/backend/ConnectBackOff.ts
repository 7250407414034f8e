import type { Clock } from '../clock/Clock.js';

/** The spacing after the first new connection to a store that stopped answering. */
export const CONNECT_BACKOFF_BASE_MS = 100;
/**
 * The largest spacing between new connections to a store that does not answer: about two a
 * second at most, and a store back from an outage is found within this.
 */
export const CONNECT_BACKOFF_CAP_MS = 500;

/**
 * The spacing before the next new connection once `opened` connections were opened since the
 * store stopped answering: {@link CONNECT_BACKOFF_BASE_MS} doubling up to
 * {@link CONNECT_BACKOFF_CAP_MS}, less up to a quarter drawn at random (jitter, so that the
 * clients of one store do not reconnect in step).
 */
export function connectSpacing(opened: number, random: () => number = Math.random): number {
  return Math.min(CONNECT_BACKOFF_CAP_MS, CONNECT_BACKOFF_BASE_MS * 2 ** Math.min(opened, 16)) * (1 - random() / 4);
}

/** Options of {@link ConnectBackOff}. */
export interface ConnectBackOffOptions {
  readonly clock: Clock;
  /** A source of numbers in [0, 1), for the jitter. @defaultValue Math.random */
  readonly random?: () => number;
}

/**
 * When a client may open a new connection to a store that stopped answering, so that a cut
 * network, a frozen or a restarting server costs a few connections per second, not one per
 * timed-out request.
 *
 * While the store answers, new connections are not limited. From a failure (a timeout, a refused
 * or broken connection: {@link failed}) until the next answer ({@link succeeded}), the first new
 * connection may open at once and each further one only after {@link connectSpacing}: 100 ms,
 * 200 ms, 400 ms, then 500 ms (each less up to a quarter). That is 8 to 10 new connections in the
 * first 3 s of an outage, then 2 to 2.7 a second.
 */
export class ConnectBackOff {
  readonly #clock: Clock;
  readonly #random: () => number;
  #failing = false;
  #opened = 0;
  #nextAt = 0;

  constructor(options: ConnectBackOffOptions) {
    this.#clock = options.clock;
    this.#random = options.random ?? Math.random;
  }

  /** True from a failure until the next answer. */
  get failing(): boolean {
    return this.#failing;
  }

  /** How long until {@link tryOpen} allows a new connection: 0 when it does now. */
  get waitMs(): number {
    return this.#failing ? Math.max(0, this.#nextAt - this.#clock.now()) : 0;
  }

  /** The store did not answer (a timeout, a refused or broken connection). */
  failed(): void {
    if (this.#failing) return;
    this.#failing = true;
    this.#opened = 0;
    this.#nextAt = this.#clock.now();
  }

  /** The store answered: new connections are not limited any more. */
  succeeded(): void {
    this.#failing = false;
  }

  /** Whether a new connection may be opened now; when it may, counts it. */
  tryOpen(): boolean {
    if (!this.#failing) return true;
    const now = this.#clock.now();
    if (now < this.#nextAt) return false;
    this.#nextAt = now + connectSpacing(this.#opened++, this.#random);
    return true;
  }
}

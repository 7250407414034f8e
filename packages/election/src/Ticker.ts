import type { Clock, Logger, Timer } from '@roster/kv-adapter';

/**
 * Runs an async step every `periodMs` on the injected clock, at a fixed rate: each step starts
 * `periodMs` after the previous one started, or at once when the previous one overran. A period
 * given as a function is asked after each step (a loop paced by the store's round trips). Steps
 * never overlap. A step that throws is logged and the ticker goes on. `stop()` is idempotent and
 * resolves when the running step (if any) has finished.
 */
export class Ticker {
  readonly #clock: Clock;
  readonly #periodMs: number | (() => number);
  readonly #step: () => Promise<void>;
  readonly #logger: Logger;
  readonly #name: string;
  #timer: Timer | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #poked = false;

  constructor(options: { clock: Clock; periodMs: number | (() => number); step: () => Promise<void>; logger: Logger; name: string }) {
    this.#clock = options.clock;
    this.#periodMs = options.periodMs;
    this.#step = options.step;
    this.#logger = options.logger;
    this.#name = options.name;
  }

  /** Runs the first step after `delayMs` (default: at once, on the next timer turn). */
  start(delayMs = 0): void {
    if (this.#stopped || this.#timer !== undefined || this.#running !== undefined) return;
    this.#timer = this.#clock.setTimer(() => this.#fire(), delayMs);
  }

  /** Runs the next step as soon as possible (right after the running one) instead of waiting for its turn. */
  poke(): void {
    if (this.#stopped) return;
    if (this.#running !== undefined) {
      this.#poked = true;
      return;
    }
    this.#timer?.cancel();
    this.#timer = this.#clock.setTimer(() => this.#fire(), 0);
  }

  /** Stops ticking; resolves once a step in progress has finished. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    await this.#running;
  }

  #fire(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    const startedAt = this.#clock.now();
    // Running from before the step is called: a poke (or a stop) from the step's synchronous start,
    // before its first await, must wait for it, not start a second chain of steps alongside.
    let finished!: () => void;
    this.#running = new Promise<void>((resolve) => (finished = resolve));
    void this.#step()
      .catch((error: unknown) => this.#logger.error({ err: error, loop: this.#name }, 'loop step failed'))
      .finally(() => {
        this.#running = undefined;
        finished();
        if (this.#stopped) return;
        const period = typeof this.#periodMs === 'function' ? this.#periodMs() : this.#periodMs;
        const wait = this.#poked ? 0 : Math.max(0, startedAt + period - this.#clock.now());
        this.#poked = false;
        this.#timer = this.#clock.setTimer(() => this.#fire(), wait);
      });
  }
}

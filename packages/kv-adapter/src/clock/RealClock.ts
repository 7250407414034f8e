import { performance } from 'node:perf_hooks';
import type { Clock, Timer } from './Clock.js';

/** Options of {@link RealClock}. */
export interface RealClockOptions {
  /**
   * Whether timers keep the Node.js process alive.
   * @defaultValue true
   */
  readonly ref?: boolean;
}

/** The system clock: `performance.now()` for durations, `Date.now()` for wall time. */
export class RealClock implements Clock {
  readonly #ref: boolean;
  constructor(options: RealClockOptions = {}) {
    this.#ref = options.ref ?? true;
  }
  now(): number {
    return performance.now();
  }
  wallTime(): number {
    return Date.now();
  }
  setTimer(fn: () => void, ms: number): Timer {
    const handle = setTimeout(fn, Math.max(0, ms));
    if (!this.#ref) handle.unref();
    return { cancel: () => clearTimeout(handle) };
  }
}

/** A shared {@link RealClock} instance. */
export const realClock: Clock = new RealClock();

import type { Clock, Timer } from '@roster/kv-adapter';

/**
 * A local clock as a node with a skewed, drifting oscillator sees it, over a base clock (the
 * "true" time, which in these tests is also the store's time): `now() = offset + rate × base.now()`,
 * and a timer of `ms` local milliseconds fires after `ms / rate` base milliseconds.
 */
export class DriftingClock implements Clock {
  constructor(
    readonly base: Clock,
    readonly offset: number,
    readonly rate: number,
  ) {}

  now(): number {
    return this.offset + this.rate * this.base.now();
  }

  wallTime(): number {
    return this.offset + this.rate * this.base.wallTime();
  }

  setTimer(fn: () => void, ms: number): Timer {
    return this.base.setTimer(fn, Math.max(0, ms) / this.rate);
  }
}

import type { Clock, Timer } from '@roster/kv-adapter';
import type { VirtualClock } from '@roster/kv-adapter/testing';

/**
 * One process's view of a shared virtual clock that can be paused as SIGSTOP pauses a process:
 * while paused, its timers come due but do not run; on resume they run in order. Time itself
 * goes on, so `now()` keeps reading the shared clock.
 */
export class HeldClock implements Clock {
  readonly #shared: VirtualClock;
  #paused = false;
  #held: (() => void)[] = [];

  constructor(shared: VirtualClock) {
    this.#shared = shared;
  }

  now(): number {
    return this.#shared.now();
  }

  wallTime(): number {
    return this.#shared.wallTime();
  }

  setTimer(fn: () => void, ms: number): Timer {
    let cancelled = false;
    const run = (): void => {
      if (!cancelled) fn();
    };
    const timer = this.#shared.setTimer(() => (this.#paused ? this.#held.push(run) : run()), ms);
    return {
      cancel: () => {
        cancelled = true;
        timer.cancel();
      },
    };
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    for (const fn of this.#held.splice(0)) this.#shared.setTimer(fn, 0);
  }
}

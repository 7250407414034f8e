import type { Clock, KV, Timer } from '@roster/kv-adapter';
import type { VirtualClock } from '@roster/testing';

/**
 * One process's view of a shared virtual clock that can be paused as SIGSTOP pauses a process:
 * while paused, its timers come due but do not run; on resume they run in order. Time itself
 * goes on, so `now()` keeps reading the shared clock. Give the process {@link wrap}ped store
 * views too, so that replies from the store wait as well.
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

  /** `kv` as the process sees it: a reply arriving while it is paused waits for the resume. */
  wrap(kv: KV): KV {
    const deliver = <T>(work: Promise<T>): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const settle = (fn: () => void): void => void (this.#paused ? this.#held.push(fn) : fn());
        work.then(
          (v) => settle(() => resolve(v)),
          (e: unknown) => settle(() => reject(e)),
        );
      });
    return new Proxy(kv, {
      get: (target, prop, receiver) => {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function' || prop === 'close') return v;
        return (...args: unknown[]) => deliver((v as (...a: unknown[]) => Promise<unknown>).apply(target, args));
      },
    });
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    for (const fn of this.#held.splice(0)) this.#shared.setTimer(fn, 0);
  }
}

import type { Clock, KV, Timer } from '@roster/kv-adapter';
import type { VirtualClock } from '@roster/testing';

/**
 * Pauses one simulated node the way a long GC pause (or SIGSTOP) would: while paused, nothing of
 * the node runs. Its timers come due but wait; replies from the store arrive but wait. On resume
 * everything that waited runs, in the order it came due, each in its own turn (as Node.js runs
 * expired timers after a pause). Time itself does not stop: {@link clock}`.now()` reads the shared
 * virtual time, so a paused leader's lease runs out on time (`isLeader()` turns false).
 *
 * Give the node {@link clock} as its clock and a store wrapped by {@link deliver}.
 */
export class PauseGate {
  /** The node's view of the shared clock. */
  readonly clock: Clock;
  readonly #shared: VirtualClock;
  #paused = false;
  #held: (() => void)[] = [];

  /**
   * @param shared - the clock of the whole simulation
   * @param admit - asked before each of the node's timer callbacks runs; `false` drops it (the
   *   simulator's guard against a node spinning at one virtual instant)
   */
  constructor(shared: VirtualClock, admit: () => boolean = () => true) {
    this.#shared = shared;
    this.clock = {
      now: () => shared.now(),
      wallTime: () => shared.wallTime(),
      setTimer: (fn: () => void, ms: number): Timer => {
        let cancelled = false;
        const timer = shared.setTimer(() => {
          if (cancelled) return;
          this.run(() => {
            if (!cancelled && admit()) fn();
          });
        }, ms);
        return {
          cancel: () => {
            cancelled = true;
            timer.cancel();
          },
        };
      },
    };
  }

  /** True while the node is paused. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Pauses the node; does nothing when it already is. */
  pause(): void {
    this.#paused = true;
  }

  /** Resumes the node: what waited runs from the next timer turn on, in order. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const held = this.#held;
    this.#held = [];
    for (const fn of held) this.#shared.setTimer(fn, 0);
  }

  /** Runs `fn` now, or when the node resumes. */
  run(fn: () => void): void {
    if (this.#paused) this.#held.push(fn);
    else fn();
  }

  /** `work`'s outcome, delivered to the node only while it is not paused. */
  deliver<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      work.then(
        (value) => this.run(() => resolve(value)),
        (error: unknown) => this.run(() => reject(error)),
      );
    });
  }

  /** `kv` as the node sees it: every reply passes through the gate. */
  wrap(kv: KV): KV {
    const deliver = <T>(work: Promise<T>): Promise<T> => this.deliver(work);
    return {
      name: kv.name,
      get capabilities() {
        return kv.capabilities;
      },
      get: (key, options) => deliver(kv.get(key, options)),
      set: (key, value, options) => deliver(kv.set(key, value, options)),
      delete: (key, options) => deliver(kv.delete(key, options)),
      append: (key, value, options) => deliver(kv.append(key, value, options)),
      take: (key, options) => deliver(kv.take(key, options)),
      getRange: (key, start, end, options) => deliver(kv.getRange(key, start, end, options)),
      exchange: (key, value, options) => deliver(kv.exchange(key, value, options)),
      compareAndSet: (key, expected, value, options) => deliver(kv.compareAndSet(key, expected, value, options)),
      time: (options) => deliver(kv.time(options)),
      close: () => kv.close(),
    };
  }
}

import { abortReason } from '../clock/Clock.js';

/**
 * At most `size` operations hold a connection at once; the others wait here, and a freed place
 * goes to the newest waiter (an adaptive LIFO, as in Facebook's "Fail at Scale"). A waiter whose
 * signal aborts (its deadline) leaves unserved.
 *
 * A driver's pool queues the operations that find every connection busy first come, first served
 * (pg's and mysql2's both do). On a store that answers slower than operations come, every
 * operation then waits nearly its whole deadline and is sent with little or none of it left: it
 * times out on the wire, or is handed back unused, and every operation fails while the server
 * stays busy. Served newest first, the oldest waiters reach their deadlines unsent and cost the
 * store nothing, and the newest run with their whole deadline ahead of them: the store answers as
 * many as it can, and the callers' back-off sees the rest fail.
 */
export class LifoGate {
  readonly #size: number;
  #held = 0;
  /** The waiters, oldest first: a freed place goes to the last. */
  readonly #waiters: (() => void)[] = [];

  /** `size`: how many may hold the gate at once (the pool's size). */
  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** How many wait for a place. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Resolves with the function that gives the place back (call it once, when the operation is
   * done) once a place is free; rejects with the signal's reason if `signal` aborts first.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#held < this.#size) return Promise.resolve(this.#take());
    return new Promise<() => void>((resolve, reject) => {
      const serve = (): void => {
        signal?.removeEventListener('abort', leave);
        resolve(this.#take());
      };
      const leave = (): void => {
        const at = this.#waiters.lastIndexOf(serve);
        if (at !== -1) this.#waiters.splice(at, 1);
        reject(abortReason(signal!));
      };
      this.#waiters.push(serve);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  #take(): () => void {
    this.#held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      // The newest waiter takes the place at once (its promise resolves in a later turn).
      this.#waiters.pop()?.();
    };
  }
}

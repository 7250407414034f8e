import { abortReason } from '../clock/Clock.js';
import { markQueued } from '../errors.js';
import { WaitLanes } from './WaitLanes.js';

/**
 * At most `size` operations hold a connection at once; the others wait here, and a freed place
 * goes to the newest waiter (an adaptive LIFO, as in Facebook's "Fail at Scale"). A waiter whose
 * signal aborts (its deadline) leaves unserved. A timeout of an operation that waited, never sent
 * or sent after its wait, is marked `queued` (`StoreUnavailableError.queued`). Urgent operations
 * (`KVOperationOptions.urgent`: a leader's lease renewal) wait in a lane of their own, served
 * before the others, newest first too.
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
  /** A freed place goes to the newest urgent waiter, else to the newest. */
  readonly #waiters = new WaitLanes<() => void>();

  /** `size`: how many may hold the gate at once (the pool's size). */
  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** How many wait for a place. */
  get waiting(): number {
    return this.#waiters.size;
  }

  /**
   * Resolves with the function that gives the place back (call it once, when the operation is
   * done) once a place is free; rejects with the signal's reason if `signal` aborts first. An
   * `urgent` waiter is served before every waiter that is not.
   */
  acquire(signal?: AbortSignal, urgent = false): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#held < this.#size) return Promise.resolve(this.#take());
    return new Promise<() => void>((resolve, reject) => {
      // The deadline passes while the operation waits (never sent), or while it is out after a
      // wait: either way it is this client's queue, not the key (`StoreUnavailableError.queued`).
      const queued = (): void => markQueued(signal!.reason);
      const serve = (): void => {
        signal?.removeEventListener('abort', leave);
        signal?.addEventListener('abort', queued, { once: true });
        const release = this.#take();
        resolve(() => {
          signal?.removeEventListener('abort', queued);
          release();
        });
      };
      const leave = (): void => {
        this.#waiters.remove(serve);
        queued();
        reject(abortReason(signal!));
      };
      this.#waiters.add(serve, urgent);
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
      // The newest waiter takes the place at once, an urgent one first (its promise resolves in a
      // later turn).
      const next = this.#waiters.next();
      if (next === undefined) return;
      this.#waiters.remove(next);
      next();
    };
  }
}

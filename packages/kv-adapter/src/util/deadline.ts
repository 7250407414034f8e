import { abortReason, type Clock } from '../clock/Clock.js';
import { AbortError, StoreUnavailableError } from '../errors.js';

/** A signal bounded in time: see {@link deadline}. */
export interface Deadline {
  /** Aborts when the time is up, when the parent aborts, or on {@link Deadline.abort}. */
  readonly signal: AbortSignal;
  /** Aborts now (with an {@link AbortError} unless a reason is given). */
  abort(reason?: unknown): void;
  /** Cancels the timer and detaches from the parent; call it when the bounded work is done. */
  dispose(): void;
}

/**
 * The one deadline helper of Roster: an `AbortSignal` that aborts `ms` after now on `clock` (with
 * `reason()`, an {@link AbortError} by default), or as soon as `parent` aborts (with its reason).
 * Every bounded wait in every package is built from it.
 */
export function deadline(clock: Clock, ms: number, parent?: AbortSignal, reason: () => unknown = () => new AbortError()): Deadline {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(abortReason(parent!));
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = clock.setTimer(() => controller.abort(reason()), Math.max(0, ms));
  return {
    signal: controller.signal,
    abort: (why) => controller.abort(why ?? new AbortError()),
    dispose: () => {
      timer.cancel();
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as `signal` aborts. The
 * abandoned promise's outcome is swallowed, so it never becomes an unhandled rejection.
 */
export function raceSignal<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => {});
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * Runs `work` under a {@link deadline} of `ms`: resolves or rejects as `work` does, but rejects
 * with {@link StoreUnavailableError} (`"<what> took longer than <ms> ms"`) when it has not settled
 * in time, or with `parent`'s reason when `parent` aborts first. `work` receives the deadline's
 * signal, to pass on to the store so that it can give up too. The loops of a node bound every
 * store operation this way, so that a stalled store never stalls the protocol's own timers.
 */
export async function withDeadline<T>(
  clock: Clock,
  ms: number,
  what: string,
  work: Promise<T> | ((signal: AbortSignal) => Promise<T>),
  parent?: AbortSignal,
): Promise<T> {
  const d = deadline(clock, ms, parent, () => new StoreUnavailableError(`${what} took longer than ${ms} ms`, { timedOut: true }));
  try {
    return await raceSignal(typeof work === 'function' ? work(d.signal) : work, d.signal);
  } finally {
    d.dispose();
  }
}

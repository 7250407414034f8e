import { AbortError } from '../errors.js';

/** A cancellable timer returned by {@link Clock.setTimer}. */
export interface Timer {
  /** Cancels the timer; calling it after the timer fired, or twice, does nothing. */
  cancel(): void;
}

/**
 * The time seam. Every timer and clock read in Roster goes through a `Clock`, so that whole
 * clusters can run deterministically on a virtual clock (`@roster/testing`'s).
 *
 * `now()` is a monotonic reading used only for local durations ("has Version changed in the
 * last T ms?"). Roster never compares a time read on one node with a time read on another, nor
 * with the store's clock.
 */
export interface Clock {
  /** Monotonic milliseconds; only differences between two readings are meaningful. */
  now(): number;
  /** Milliseconds since the Unix epoch; for display and event timestamps only. */
  wallTime(): number;
  /** Calls `fn` once after `ms` milliseconds. Exceptions thrown by `fn` are the caller's to catch. */
  setTimer(fn: () => void, ms: number): Timer;
}

/**
 * Resolves after `ms` on `clock`, or rejects with `signal.reason` (an {@link AbortError} when the
 * signal carries none) as soon as `signal` aborts. Listeners are removed in every case.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal!));
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The reason an aborted signal carries, or an {@link AbortError}. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new AbortError();
}

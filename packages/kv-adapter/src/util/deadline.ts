import { abortReason, type Clock, type Timer } from '../clock/Clock.js';
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
 * A timer for `ms` on `clock` that calls `expire` when the time is up, and that never expires
 * ahead of an answer which had already arrived: when it fires late (the event loop was busy, so
 * replies may be waiting in a socket, and a timer runs before the I/O of its turn), it waits one
 * more timer turn (0 ms) before expiring, so that the I/O received meanwhile is handled first.
 * On a virtual clock timers fire on time, and this is a plain timer.
 */
function expiryTimer(clock: Clock, ms: number, expire: () => void): Timer {
  const due = clock.now() + Math.max(0, ms);
  let timer = clock.setTimer(() => {
    if (clock.now() > due) timer = clock.setTimer(expire, 0);
    else expire();
  }, Math.max(0, ms));
  return { cancel: () => timer.cancel() };
}

/**
 * The one deadline helper of Roster: an `AbortSignal` that aborts `ms` after now on `clock` (with
 * `reason()`, an {@link AbortError} by default), or as soon as `parent` aborts (with its reason).
 * Every bounded wait in every package is built from it. A timer that fires late (the event loop
 * was busy) aborts one timer turn later, after the I/O already received.
 */
export function deadline(clock: Clock, ms: number, parent?: AbortSignal, reason: () => unknown = () => new AbortError()): Deadline {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(abortReason(parent!));
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = expiryTimer(clock, ms, () => controller.abort(reason()));
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
 *
 * Given a promise and no parent (the hot path of every loop), it needs no signal: one timer races
 * the promise, with nothing else allocated. A deadline that fires late (the event loop was busy)
 * rejects one timer turn later, after the replies already received: a process that falls behind
 * does not turn the answers waiting in its socket into timeouts.
 */
export function withDeadline<T>(
  clock: Clock,
  ms: number,
  what: string,
  work: Promise<T> | ((signal: AbortSignal) => Promise<T>),
  parent?: AbortSignal,
): Promise<T> {
  if (typeof work !== 'function' && parent === undefined) return raceTimer(clock, ms, what, work);
  return withSignal(clock, ms, what, work, parent);
}

function raceTimer<T>(clock: Clock, ms: number, what: string, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = expiryTimer(clock, ms, () => {
      if (settled) return;
      settled = true;
      work.catch(() => {});
      reject(new StoreUnavailableError(`${what} took longer than ${ms} ms`, { timedOut: true }));
    });
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        reject(error);
      },
    );
  });
}

async function withSignal<T>(
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

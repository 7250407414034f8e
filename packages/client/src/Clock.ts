/**
 * The one thing the client needs of a clock: a cancellable timer for the reconnection delay.
 * Any Roster `Clock` (a virtual clock in tests) fits.
 */
export interface Clock {
  /** Calls `fn` once after `ms` milliseconds; `cancel()` prevents it. */
  setTimer(fn: () => void, ms: number): { cancel(): void };
}

/** The system clock. */
export const realClock: Clock = {
  setTimer(fn, ms) {
    const handle = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(handle) };
  },
};

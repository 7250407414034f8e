import { StoreUnavailableError, type Clock } from '@roster/kv-adapter';

/**
 * Resolves or rejects as `work` does, but rejects with {@link StoreUnavailableError} when it has
 * not settled within `ms` on `clock`. The loops of a node bound every store operation this way so
 * that a stalled store never stalls the protocol's own timers. A late outcome of `work` is
 * ignored (and its rejection handled).
 */
export function withDeadline<T>(clock: Clock, ms: number, what: string, work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimer(() => reject(new StoreUnavailableError(`${what} took longer than ${ms} ms`)), ms);
    work.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error);
      },
    );
  });
}

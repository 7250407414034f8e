import { silentLogger, type Logger } from '../logger.js';

type Watcher<U> = ((update: U) => void) & { end?: () => void };

/**
 * Rethrows `error` on the next tick, where it is an uncaught exception (as Node's `EventTarget`
 * reports an error thrown by a listener): for a watch function that threw when no logger was
 * given, so that the bug is not silently swallowed.
 */
export function reportUncaught(error: unknown): void {
  process.nextTick(() => {
    throw error;
  });
}

/**
 * Delivers typed updates to watch functions and async iterators. A watch function
 * that throws is kept, and the other watchers still get the update; its error is logged, or,
 * when there is no logger (the silent default), reported as an uncaught exception on the next
 * tick, never swallowed. Iterators buffer what their consumer has not read yet. The one typed
 * emitter of Roster: the node, the cluster handle and the primary contender all speak through it.
 */
export class UpdateStream<U extends { readonly type: string }> {
  readonly #watchers = new Set<Watcher<U>>();
  readonly #logger: Logger;
  readonly #uncaught: (error: unknown) => void;
  #closed = false;

  /**
   * @param logger - where a watch function's error is logged.
   * @param uncaught - what is done with that error when `logger` is the silent default. @defaultValue {@link reportUncaught}
   */
  constructor(logger: Logger, uncaught: (error: unknown) => void = reportUncaught) {
    this.#logger = logger;
    this.#uncaught = uncaught;
  }

  /** Installs `fn`; returns the function that removes it. */
  watch(fn: (update: U) => void): () => void {
    this.#watchers.add(fn);
    return () => {
      this.#watchers.delete(fn);
    };
  }

  /** Installs `fn` for the updates of one `type` only; returns the function that removes it. */
  on<T extends U['type']>(type: T, fn: (update: Extract<U, { type: T }>) => void): () => void {
    return this.watch((u) => {
      if (u.type === type) fn(u as Extract<U, { type: T }>);
    });
  }

  /** Delivers `update` to every watcher. */
  emit(update: U): void {
    for (const fn of [...this.#watchers]) {
      try {
        fn(update);
      } catch (error) {
        if (this.#logger === silentLogger) this.#uncaught(error);
        else this.#logger.error({ err: error, update: update.type }, 'a watch function threw');
      }
    }
  }

  /** Ends every iterator (after the buffered updates are read). */
  close(): void {
    this.#closed = true;
    for (const fn of [...this.#watchers]) fn.end?.();
  }

  /**
   * An async iterator over the updates emitted from now on. It ends after {@link close} (once the
   * buffered updates are read), ends at once when `signal` aborts (the updates not read yet are
   * dropped; a pending `next()` resolves `done`: an abort means "stop listening", like leaving the
   * loop, not a failure to reject with), and detaches when the consumer breaks out of its
   * `for await` loop.
   */
  iterate(signal?: AbortSignal): AsyncIterableIterator<U> {
    const buffer: U[] = [];
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const fn: Watcher<U> = Object.assign((u: U) => {
      buffer.push(u);
      wake?.();
    }, {
      end: () => {
        done = true;
        wake?.();
      },
    });
    const unwatch = this.watch(fn);
    const finish = (): void => {
      done = true;
      unwatch();
      signal?.removeEventListener('abort', onAbort);
    };
    // Detached at the abort itself, not at the next read: an iterator nobody reads holds nothing.
    const onAbort = (): void => {
      finish();
      buffer.length = 0;
      wake?.();
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    const iterator: AsyncIterableIterator<U> = {
      [Symbol.asyncIterator]() {
        return iterator;
      },
      async next(): Promise<IteratorResult<U>> {
        for (;;) {
          const u = buffer.shift();
          if (u !== undefined) return { value: u, done: false };
          if (done) {
            finish();
            return { value: undefined, done: true };
          }
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      async return(): Promise<IteratorResult<U>> {
        finish();
        buffer.length = 0;
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }
}

import type { Logger } from '../logger.js';

type Watcher<U> = ((update: U) => void) & { end?: () => void };

/**
 * Delivers updates to watch functions and async iterators. A watch function that throws is
 * logged and kept; an iterator buffers what its consumer has not read yet. (The same job as
 * `UpdateStream` of `@roster/election`, which this package cannot depend on.)
 */
export class UpdateStream<U> {
  readonly #watchers = new Set<Watcher<U>>();
  readonly #logger: Logger;
  #closed = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Installs `fn`; returns the function that removes it. */
  watch(fn: (update: U) => void): () => void {
    const watcher: Watcher<U> = (update) => fn(update);
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** Delivers `update` to every watcher installed now. */
  emit(update: U): void {
    for (const fn of [...this.#watchers]) {
      try {
        fn(update);
      } catch (error) {
        this.#logger.error({ err: error }, 'a watch function threw');
      }
    }
  }

  /** Ends every iterator, once its buffered updates are read. */
  close(): void {
    this.#closed = true;
    for (const fn of [...this.#watchers]) fn.end?.();
  }

  /**
   * The updates emitted from now on. Ends after {@link close}, rejects with `signal.reason` when
   * `signal` aborts, and detaches when the consumer breaks out of its `for await` loop.
   */
  iterate(signal?: AbortSignal): AsyncIterableIterator<U> {
    const buffer: U[] = [];
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const fn: Watcher<U> = Object.assign(
      (update: U) => {
        buffer.push(update);
        wake?.();
      },
      {
        end: () => {
          done = true;
          wake?.();
        },
      },
    );
    this.#watchers.add(fn);
    const onAbort = (): void => wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      done = true;
      this.#watchers.delete(fn);
      signal?.removeEventListener('abort', onAbort);
    };
    const iterator: AsyncIterableIterator<U> = {
      [Symbol.asyncIterator]() {
        return iterator;
      },
      async next(): Promise<IteratorResult<U>> {
        for (;;) {
          if (signal?.aborted) {
            finish();
            throw signal.reason;
          }
          if (buffer.length > 0) return { value: buffer.shift()!, done: false };
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

import { abortReason, type Logger } from '@roster/kv-adapter';
import type { ClusterUpdate, ClusterWatchFunction } from '../events.js';

type Watcher = ClusterWatchFunction & { end?: () => void };

/**
 * Delivers a cluster handle's updates to watch functions and async iterators. A watch function
 * that throws is logged and kept; an iterator buffers what its consumer has not read yet.
 */
export class Updates {
  readonly #watchers = new Set<Watcher>();
  readonly #logger: Logger;
  #closed = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Installs `fn`; returns the function that removes it. */
  watch(fn: ClusterWatchFunction): () => void {
    this.#watchers.add(fn);
    return () => {
      this.#watchers.delete(fn);
    };
  }

  /** Delivers `update` to every watcher; never throws. */
  emit(update: ClusterUpdate): void {
    for (const fn of [...this.#watchers]) {
      try {
        fn(update);
      } catch (error) {
        this.#logger.error({ err: error, update: update.type }, 'cluster: a watch function threw');
      }
    }
  }

  /** Ends every iterator once its buffered updates are read. */
  close(): void {
    this.#closed = true;
    for (const fn of [...this.#watchers]) fn.end?.();
  }

  /**
   * An async iterator over the updates emitted from now on. It ends after the `left` update, or
   * rejects with `signal.reason` when `signal` aborts; `return()` (a `break`) detaches it.
   */
  iterate(signal?: AbortSignal): AsyncIterableIterator<ClusterUpdate> {
    const buffer: ClusterUpdate[] = [];
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const fn: Watcher = Object.assign(
      (u: ClusterUpdate) => {
        buffer.push(u);
        wake?.();
      },
      {
        end: () => {
          done = true;
          wake?.();
        },
      },
    );
    const unwatch = this.watch(fn);
    const onAbort = (): void => wake?.();
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      done = true;
      unwatch();
      signal?.removeEventListener('abort', onAbort);
    };
    const iterator: AsyncIterableIterator<ClusterUpdate> = {
      [Symbol.asyncIterator]() {
        return iterator;
      },
      async next(): Promise<IteratorResult<ClusterUpdate>> {
        for (;;) {
          if (signal?.aborted) {
            finish();
            throw abortReason(signal);
          }
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
      async return(): Promise<IteratorResult<ClusterUpdate>> {
        finish();
        buffer.length = 0;
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }
}

import { abortReason, type Logger } from '@roster/kv-adapter';
import type { RosterUpdate, WatchFunction } from './events.js';

/**
 * Delivers a node's updates to watch functions and async iterators. A watch function that throws
 * is logged and kept; iterators buffer what their consumer has not read yet.
 */
export class Updates {
  readonly #watchers = new Set<WatchFunction>();
  readonly #logger: Logger;
  #closed = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Installs `fn`; returns the function that removes it. */
  watch(fn: WatchFunction): () => void {
    this.#watchers.add(fn);
    return () => {
      this.#watchers.delete(fn);
    };
  }

  /** Delivers `update` to every watcher. */
  emit(update: RosterUpdate): void {
    for (const fn of [...this.#watchers]) {
      try {
        fn(update);
      } catch (error) {
        this.#logger.error({ err: error, update: update.type }, 'a watch function threw');
      }
    }
  }

  /** Ends every iterator (after the buffered updates are read). */
  close(): void {
    this.#closed = true;
    for (const fn of [...this.#watchers]) (fn as WatchFunction & { end?: () => void }).end?.();
  }

  /**
   * An async iterator over the updates emitted from now on. It ends when the node stops or
   * `signal` aborts; breaking out of a `for await` loop detaches it.
   */
  iterate(signal?: AbortSignal): AsyncIterableIterator<RosterUpdate> {
    const buffer: RosterUpdate[] = [];
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const fn = Object.assign((u: RosterUpdate) => {
      buffer.push(u);
      wake?.();
    }, {
      end: () => {
        done = true;
        wake?.();
      },
    });
    const unwatch = this.watch(fn);
    const onAbort = (): void => {
      done = true;
      wake?.();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (): void => {
      done = true;
      unwatch();
      signal?.removeEventListener('abort', onAbort);
    };
    const iterator: AsyncIterableIterator<RosterUpdate> = {
      [Symbol.asyncIterator]() {
        return iterator;
      },
      async next(): Promise<IteratorResult<RosterUpdate>> {
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
      async return(): Promise<IteratorResult<RosterUpdate>> {
        finish();
        buffer.length = 0;
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }
}

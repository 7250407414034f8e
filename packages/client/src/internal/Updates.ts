import { EventEmitter, on, setMaxListeners } from 'node:events';
import type { Logger } from '../Logger.js';

/**
 * The client's updates, on Node's own `EventEmitter` and `events.on`: watch functions
 * that are logged and kept when they throw, and async iterators that end when the client closes
 * (after what they buffered) or when their own signal aborts (at once, without rejecting: the
 * same as `@roster/election`'s `node.updates()`).
 */
export class Updates<U extends { readonly type: string }> {
  readonly #emitter = new EventEmitter();
  readonly #closed = new AbortController();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
    // Any number of watchers and iterators is fine; no "possible leak" warnings on the console.
    this.#emitter.setMaxListeners(0);
    setMaxListeners(0, this.#closed.signal);
  }

  /** Installs `fn`; returns the function that removes it. */
  watch(fn: (update: U) => void): () => void {
    const listener = (update: U): void => {
      try {
        fn(update);
      } catch (error) {
        this.#logger.error({ err: error, update: update.type }, 'a watch function threw');
      }
    };
    this.#emitter.on('update', listener);
    return () => {
      this.#emitter.off('update', listener);
    };
  }

  /** Delivers `update` to every watcher and iterator, in order. */
  emit(update: U): void {
    this.#emitter.emit('update', update);
  }

  /** Ends every iterator once it has read what was emitted before. */
  close(): void {
    this.#closed.abort();
  }

  /** The updates emitted from now on; listening starts at once, not at the first `next()`. */
  iterate(signal?: AbortSignal): AsyncIterableIterator<U> {
    const stop = signal === undefined ? this.#closed.signal : AbortSignal.any([signal, this.#closed.signal]);
    if (stop.aborted) return ended<U>();
    return read<U>(on(this.#emitter, 'update', { signal: stop }) as AsyncIterableIterator<[U]>, signal);
  }
}

/**
 * The updates of `events` until it ends. `events.on` rejects with an `AbortError` once its signal
 * aborted (after the buffered events): that is the end here, whichever signal it was; an abort of
 * the caller's own `signal` also drops what was buffered.
 */
async function* read<U>(events: AsyncIterableIterator<[U]>, signal: AbortSignal | undefined): AsyncGenerator<U, void, undefined> {
  try {
    for await (const [update] of events) {
      if (signal?.aborted) return;
      yield update;
    }
  } catch (error) {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  }
}

async function* ended<U>(): AsyncGenerator<U, void, undefined> {}

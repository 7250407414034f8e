import { EventEmitter, on, setMaxListeners } from 'node:events';
import type { Logger } from '../Logger.js';

/**
 * The client's updates, on Node's own `EventEmitter` and `events.on`: watch functions
 * that are logged and kept when they throw, and async iterators that end when the client closes
 * and reject with their own signal's reason.
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
    if (signal?.aborted) return rejected(signal.reason);
    const stop = signal === undefined ? this.#closed.signal : AbortSignal.any([signal, this.#closed.signal]);
    if (stop.aborted) return ended<U>();
    return read<U>(on(this.#emitter, 'update', { signal: stop }) as AsyncIterableIterator<[U]>, signal);
  }
}

async function* read<U>(events: AsyncIterableIterator<[U]>, signal: AbortSignal | undefined): AsyncGenerator<U, void, undefined> {
  try {
    for await (const [update] of events) {
      if (signal?.aborted) throw signal.reason;
      yield update;
    }
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    // Otherwise the client closed: `events.on` ends with an AbortError after the buffered updates.
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  }
}

async function* ended<U>(): AsyncGenerator<U, void, undefined> {}

async function* rejected<U>(reason: unknown): AsyncGenerator<U, void, undefined> {
  throw reason;
}

import { realClock, silentLogger, type Clock, type KV, type KVOperationOptions, type Logger, type Namespace } from '@roster/kv-adapter';
import { abortReason, deadline, sleep } from '@roster/kv-adapter/internal';
import type { CorruptEntryReport } from './corruptEntry.js';
import { HeartbeatTable, type Primary } from './HeartbeatTable.js';

import { checkUtype } from './names.js';
import { resolveTiming, type HeartbeatTiming } from './timing.js';

/** Options of {@link PrimaryResolver}. */
export interface PrimaryResolverOptions extends HeartbeatTiming {
  /** The store; it must declare the `compareAndSet` and `time` capabilities. */
  readonly store: KV;
  /** The key prefix of the heartbeat table. */
  readonly namespace: Namespace;
  /** Times the polls of {@link PrimaryResolver.watch}. @defaultValue the real clock */
  readonly clock?: Clock;
  /** Where failed polls and corrupt entries are logged. @defaultValue silentLogger */
  readonly logger?: Logger;
  /** Called with every corrupt entry read. */
  readonly onCorruptEntry?: (report: CorruptEntryReport) => void;
}

/** A change of the primary of a role type, as {@link PrimaryResolver.watch} reports it. */
export interface PrimaryChange {
  /** The role type. */
  readonly utype: string;
  /** The primary now, or `undefined` when there is none. */
  readonly primary: Primary | undefined;
  /** The primary before, or `undefined` (there was none, or this is the first report). */
  readonly previous: Primary | undefined;
}

/** Options of {@link PrimaryResolver.watch} and {@link PrimaryResolver.changes}. */
export interface WatchOptions {
  /** Stops watching when it aborts (`changes` then rejects with its reason). */
  readonly signal?: AbortSignal;
  /** Called with each failed poll (the watch goes on and reports no change). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Name resolution over the heartbeat table: who is the primary of a role type, and where it
 * listens. Reads only; judged by the store's clock (an entry older than T is no primary).
 *
 * @example
 * ```ts
 * const resolver = new PrimaryResolver({ store, namespace });
 * await resolver.resolve('billing'); // '10.0.0.7:8080', or undefined when there is no primary
 * const unsubscribe = resolver.watch('billing', ({ primary }) => connectTo(primary?.endpoint));
 * for await (const change of resolver.changes('billing', { signal })) console.log(change.primary?.id);
 * ```
 */
export class PrimaryResolver {
  /** The table read. */
  readonly table: HeartbeatTable;
  /** I: how often `watch` polls, in ms. */
  readonly intervalMs: number;
  /** T, in ms of store time. */
  readonly timeoutMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;

  /**
   * @throws {@link ConfigError} for invalid timing.
   * @throws {@link UnsupportedOperationError} when the store lacks `compareAndSet` or `time`.
   */
  constructor(options: PrimaryResolverOptions) {
    const { intervalMs, timeoutMs } = resolveTiming(options);
    this.intervalMs = intervalMs;
    this.timeoutMs = timeoutMs;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.table = new HeartbeatTable({
      store: options.store,
      namespace: options.namespace,
      timeoutMs,
      logger: this.#logger,
      ...(options.onCorruptEntry ? { onCorruptEntry: options.onCorruptEntry } : {}),
    });
  }

  /** The current primary of `utype`, or `undefined` (one read of the table). */
  getPrimary(utype: string, options: KVOperationOptions = {}): Promise<Primary | undefined> {
    return this.table.getPrimary(utype, options);
  }

  /**
   * The endpoint of the current primary of `utype`, or `undefined` when there is no primary (or it
   * published no endpoint). Rejects with the store's typed errors or the signal's reason.
   */
  async resolve(utype: string, options: KVOperationOptions = {}): Promise<string | undefined> {
    return (await this.table.getPrimary(utype, options))?.endpoint;
  }

  /**
   * Polls `utype` every I and calls `listener` with the first answer, then on every change of the
   * primary's instance or endpoint. A failed poll changes nothing (it goes to `onError` and the
   * log). Returns a function that stops watching; so does `options.signal`.
   *
   * @throws {@link ConfigError} for an invalid `utype`.
   */
  watch(utype: string, listener: (change: PrimaryChange) => void, options: WatchOptions = {}): () => void {
    checkUtype(utype);
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    if (options.signal?.aborted) return stop;
    options.signal?.addEventListener('abort', stop, { once: true });
    void this.#poll(utype, listener, options.onError, controller.signal)
      .catch((error: unknown) => this.#logger.error({ utype, error }, 'primary: watch loop failed'))
      .finally(() => options.signal?.removeEventListener('abort', stop));
    return stop;
  }

  /**
   * The changes of {@link watch} as an async iterator. Breaking out of `for await` (or calling
   * `return()`) stops watching; when `options.signal` aborts, `next()` rejects with its reason.
   * Changes not yet consumed are queued.
   */
  changes(utype: string, options: WatchOptions = {}): AsyncIterableIterator<PrimaryChange> {
    const queue: PrimaryChange[] = [];
    const signal = options.signal;
    let wake: (() => void) | undefined;
    let done = false;
    const unsubscribe = this.watch(utype, (change) => {
      queue.push(change);
      wake?.();
    }, { ...options, signal: undefined });
    const finish = (): void => {
      done = true;
      unsubscribe();
      signal?.removeEventListener('abort', finish);
      wake?.();
    };
    if (signal?.aborted) finish();
    else signal?.addEventListener('abort', finish, { once: true });
    const iterator: AsyncIterableIterator<PrimaryChange> = {
      next: async () => {
        for (;;) {
          if (signal?.aborted) throw abortReason(signal);
          const change = queue.shift();
          if (change !== undefined) return { value: change, done: false };
          if (done) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      },
      return: async () => {
        finish();
        queue.length = 0;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async #poll(utype: string, listener: (change: PrimaryChange) => void, onError: ((error: unknown) => void) | undefined, stopped: AbortSignal): Promise<void> {
    let known = false;
    let current: Primary | undefined;
    let failing = false;
    while (!stopped.aborted) {
      const start = this.#clock.now();
      const round = deadline(this.#clock, this.timeoutMs - this.intervalMs, stopped);
      try {
        const primary = await this.table.getPrimary(utype, { signal: round.signal });
        failing = false;
        if (stopped.aborted) return;
        if (!known || !samePrimary(current, primary)) {
          const previous = current;
          known = true;
          current = primary;
          this.#call(utype, () => listener({ utype, primary, previous }));
        }
      } catch (error) {
        if (stopped.aborted) return;
        if (!failing) this.#logger.warn({ utype, error }, 'primary: watch poll failed');
        failing = true;
        if (onError) this.#call(utype, () => onError(error));
      } finally {
        round.dispose();
      }
      try {
        await sleep(this.#clock, Math.max(0, this.intervalMs - (this.#clock.now() - start)), stopped);
      } catch {
        return;
      }
    }
  }

  #call(utype: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#logger.error({ utype, error }, 'primary: a watch listener threw');
    }
  }
}

function samePrimary(a: Primary | undefined, b: Primary | undefined): boolean {
  return a?.id === b?.id && a?.endpoint === b?.endpoint;
}

import type { Logger } from '@roster/kv-adapter';

/** A listener of one event. */
export type Listener<T> = (event: T) => void;

/**
 * A small typed event emitter. Listeners run synchronously in the order they were added; one that
 * throws is logged and skipped, so an emit (often from a timer) never throws.
 */
export class Emitter<Events extends object> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Adds `listener` for `name`; returns a function that removes it. */
  on<K extends keyof Events>(name: K, listener: Listener<Events[K]>): () => void {
    let set = this.#listeners.get(name);
    if (!set) this.#listeners.set(name, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => {
      set.delete(listener as Listener<never>);
    };
  }

  /** Calls every listener of `name` with `event`. */
  emit<K extends keyof Events>(name: K, event: Events[K]): void {
    const set = this.#listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as Listener<Events[K]>)(event);
      } catch (error) {
        this.#logger.error({ event: String(name), error }, 'primary: an event listener threw');
      }
    }
  }
}

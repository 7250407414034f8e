import type { Clock, Timer } from '@roster/kv-adapter';

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Options of {@link VirtualClock}. */
export interface VirtualClockOptions {
  /** Virtual monotonic time at start, in ms. @defaultValue 0 */
  readonly start?: number;
  /** Wall time (ms since the epoch) that corresponds to `start`. @defaultValue 1_700_000_000_000 */
  readonly epoch?: number;
  /** Called with any exception a timer callback throws; by default it is re-thrown from `advance`. */
  readonly onTimerError?: (error: unknown) => void;
}

/**
 * A deterministic clock for tests and simulation: time moves only when {@link advance} is called.
 *
 * Timers fire in order of due time, ties in order of creation. After each timer fires, pending
 * promise callbacks are drained (one macrotask turn), so async code written against the
 * {@link Clock} interface and an in-memory store runs to its next timer before time moves on.
 * The same sequence of calls always gives the same run.
 *
 * @example
 * ```ts
 * const clock = new VirtualClock();
 * let fired = false;
 * clock.setTimer(() => { fired = true; }, 1000);
 * await clock.advance(999); // fired === false
 * await clock.advance(1);   // fired === true
 * ```
 */
export class VirtualClock implements Clock {
  #now: number;
  readonly #epoch: number;
  #seq = 0;
  readonly #heap: Entry[] = [];
  readonly #onTimerError: ((error: unknown) => void) | undefined;

  constructor(options: VirtualClockOptions = {}) {
    this.#now = options.start ?? 0;
    this.#epoch = (options.epoch ?? 1_700_000_000_000) - this.#now;
    this.#onTimerError = options.onTimerError;
  }

  now(): number {
    return this.#now;
  }

  wallTime(): number {
    return this.#epoch + this.#now;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const entry: Entry = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn, cancelled: false };
    this.#push(entry);
    return {
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** The number of timers not yet fired nor cancelled. */
  get pendingTimers(): number {
    return this.#heap.filter((e) => !e.cancelled).length;
  }

  /** The due time of the next live timer, or `undefined` when none is pending. */
  nextTimerAt(): number | undefined {
    this.#dropCancelled();
    return this.#heap[0]?.at;
  }

  /**
   * Moves time forward by `ms`, firing every timer that comes due on the way, in order, and
   * letting the promise callbacks each one starts run before the next.
   */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }

  /** Moves time forward to the absolute virtual time `target` (see {@link advance}). */
  async advanceTo(target: number): Promise<void> {
    await settle();
    for (;;) {
      this.#dropCancelled();
      const next = this.#heap[0];
      if (next === undefined || next.at > target) break;
      this.#pop();
      this.#now = Math.max(this.#now, next.at);
      try {
        next.fn();
      } catch (error) {
        if (this.#onTimerError) this.#onTimerError(error);
        else throw error;
      }
      await settle();
    }
    this.#now = Math.max(this.#now, target);
  }

  /**
   * Advances in steps of `stepMs` until `predicate()` is true or `limitMs` has passed; returns the
   * virtual time it took, or `undefined` when the limit was reached first.
   */
  async advanceUntil(predicate: () => boolean, limitMs: number, stepMs = 1): Promise<number | undefined> {
    const start = this.#now;
    while (!predicate()) {
      if (this.#now - start >= limitMs) return undefined;
      await this.advance(stepMs);
    }
    return this.#now - start;
  }

  #dropCancelled(): void {
    while (this.#heap.length > 0 && this.#heap[0]!.cancelled) this.#pop();
  }

  #less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(entry: Entry): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  #pop(): Entry | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && this.#less(heap[l]!, heap[m]!)) m = l;
        if (r < heap.length && this.#less(heap[r]!, heap[m]!)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m]!, heap[i]!];
        i = m;
      }
    }
    return top;
  }
}

/** Lets every queued promise callback run: one macrotask turn drains the microtask queue. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

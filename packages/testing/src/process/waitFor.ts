import { realClock, type Clock } from '@roster/kv-adapter';
import { abortReason, sleep } from '@roster/kv-adapter/internal';

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /**
   * What is awaited, for the timeout's message: `"redis-server on port 30001 to answer PING"`, or a
   * function called only on timeout, to describe the state then (what a failing test shows).
   */
  readonly what: string | (() => string);
  /** Give up after this long. */
  readonly timeoutMs: number;
  /** Pause between two checks. @defaultValue 50 */
  readonly everyMs?: number;
  /** Ends the wait at once with the signal's reason (e.g. when the awaited process exited). */
  readonly signal?: AbortSignal;
  /** The clock of the deadline and the pauses. @defaultValue the real clock */
  readonly clock?: Clock;
}

/**
 * Polls `check` until it returns true, and resolves with the time that took (ms). The one polling
 * wait of Roster's tests. A check that throws counts as false (its last error is quoted in the
 * timeout's message); the wait rejects after `timeoutMs` with
 * `timed out after <timeoutMs> ms waiting for <what>`, or at once with `signal`'s reason.
 *
 * @example
 * ```ts
 * await waitFor(async () => (await redisCommand(port, ['PING'])) === 'PONG', {
 *   what: `redis-server on port ${port} to answer PING`,
 *   timeoutMs: 10_000,
 * });
 * ```
 */
export async function waitFor(check: () => boolean | Promise<boolean>, options: WaitForOptions): Promise<number> {
  const clock = options.clock ?? realClock;
  const start = clock.now();
  const deadline = start + options.timeoutMs;
  let last: unknown;
  for (;;) {
    if (options.signal?.aborted) throw abortReason(options.signal);
    try {
      if (await check()) return clock.now() - start;
    } catch (error) {
      last = error;
    }
    if (options.signal?.aborted) throw abortReason(options.signal);
    if (clock.now() > deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    }
    await sleep(clock, options.everyMs ?? 50, options.signal);
  }
}

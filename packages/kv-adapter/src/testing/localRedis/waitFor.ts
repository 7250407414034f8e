import { realClock } from '../../clock/RealClock.js';
import { abortReason, sleep, type Clock } from '../../clock/Clock.js';

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** What is awaited, for the timeout's message: `"redis-server on port 30001 to answer PING"`. */
  readonly what: string;
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
 * Polls `check` until it returns true. A check that throws counts as false (its last error is
 * quoted in the timeout's message); the wait rejects after `timeoutMs` with
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
export async function waitFor(check: () => boolean | Promise<boolean>, options: WaitForOptions): Promise<void> {
  const clock = options.clock ?? realClock;
  const deadline = clock.now() + options.timeoutMs;
  let last: unknown;
  for (;;) {
    if (options.signal?.aborted) throw abortReason(options.signal);
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    if (options.signal?.aborted) throw abortReason(options.signal);
    if (clock.now() > deadline) {
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    }
    await sleep(clock, options.everyMs ?? 50, options.signal);
  }
}

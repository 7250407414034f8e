/**
 * The durations a follower's reads and rules go by, by name. Their values come from the one table
 * of every duration of the protocol, `@roster/election`'s `Timing` (`deriveTiming`), which extends
 * this interface: the follower only reads them, so that I and T are multiplied in one place.
 */
export interface FollowerTiming {
  /** T: a Version still for T means the leader is gone. */
  readonly timeoutMs: number;
  /** A Version unchanged this long is still: followers then read every nonce (1.5I). */
  readonly stillMs: number;
  /** Followers read every nonce at least this often, whatever they see (5T). */
  readonly scanEveryMs: number;
  /**
   * While the Version followed is still, a follower polls every `stillPollMs` (I/2) and scans
   * every nonce at most every `stillScanMs` (1.9I at the default T = 5I: every fourth poll),
   * reading only the nonce it follows in between, where a new leader's claim usually lands.
   */
  readonly stillPollMs: number;
  readonly stillScanMs: number;
  /** Reads whose starts are further apart leave a gap in what a node saw (2I). */
  readonly readGapMs: number;
  /** A read slower than this was not looking: a paused process (max(2I, T/2)). */
  readonly slowReadMs: number;
  /** A claim (Version 0) counts as still only after T + `claimGraceMs` (2I). */
  readonly claimGraceMs: number;
  /** A listed follower PONGed by nobody for this long stands (T + 2I). */
  readonly pongTimeoutMs: number;
  /** The time a reader gives list steps before it reads the whole list (τ/2). */
  readonly listStepBudgetMs: number;
}

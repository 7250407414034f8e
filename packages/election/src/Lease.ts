import type { Clock, Logger, Timer } from '@roster/kv-adapter';
import { LeadershipLostError } from './errors.js';
import type { LeadershipLossReason } from './events.js';
import type { NodeStats } from './NodeStats.js';

/** Why a lease lapsed: the store failed the last publication, or time simply ran out. */
export type LapseReason = 'lease-expired' | 'store-unavailable';

/** Options of {@link Lease}. */
export interface LeaseOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly stats: NodeStats;
  /** The node, for the log. */
  readonly id: string;
  /** R: a publication whose cycle started at `s` makes the lease hold until `s + R`. */
  readonly renewDeadlineMs: number;
  /** Why the lease would lapse now (asked when it does). */
  readonly reason: () => LapseReason;
  /** Called when the lease lapses, before the leadership signal aborts. */
  readonly onLapse: (reason: LapseReason) => void;
  /** Called when a lapsed lease holds again (a fresh {@link Lease.signal}). */
  readonly onRevalidate: () => void;
}

/**
 * A leader's lease, the one source of truth of whether it may act as leader: a deadline on the
 * local clock (`until`), renewed by publications, lapsed when it passes, re-validated by later
 * publications, and ended with the leadership. Its {@link signal} aborts on a lapse and on the end;
 * a re-validated lease has a fresh one.
 */
export class Lease {
  readonly #o: LeaseOptions;
  #until = Number.NEGATIVE_INFINITY;
  #timer: Timer | undefined;
  #lapsed = false;
  #ended = false;
  #abort = new AbortController();

  constructor(options: LeaseOptions) {
    this.#o = options;
  }

  /** True while the lease holds at `now`. */
  holds(now: number): boolean {
    return !this.#ended && !this.#lapsed && now < this.#until;
  }

  /** True from a lapse until the lease is re-validated. */
  get lapsed(): boolean {
    return this.#lapsed;
  }

  /** Aborts (with a {@link LeadershipLostError}) on a lapse and when leadership ends. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /**
   * Sets the lease to `cycleStart + R`; true when it holds now (a lapse is then over: the owner is
   * told, and the signal is a fresh one).
   */
  renew(cycleStart: number): boolean {
    const { clock, renewDeadlineMs, logger, id } = this.#o;
    if (this.#ended || cycleStart + renewDeadlineMs <= clock.now()) return false;
    this.#until = cycleStart + renewDeadlineMs;
    this.#timer?.cancel();
    this.#timer = clock.setTimer(() => this.lapse(), this.#until - clock.now());
    if (this.#lapsed) {
      this.#lapsed = false;
      this.#abort = new AbortController();
      this.#o.stats.count('lease.revalidated');
      logger.info({ node: id }, 'lease re-validated');
      this.#o.onRevalidate();
    }
    return true;
  }

  /**
   * Marks the lease as lapsed (its deadline passed; the timer may not have run in a pause): the
   * signal aborts and the owner is told, once per lapse. Leadership is not over: the next
   * publications re-validate it.
   */
  lapse(): void {
    if (this.#ended || this.#lapsed) return;
    this.#lapsed = true;
    this.#timer?.cancel();
    const reason = this.#o.reason();
    this.#o.logger.info({ node: this.#o.id, reason }, 'lease lapsed; re-validating');
    // The owner tells its users first, so that code the abort wakes sees the role already changed.
    this.#o.onLapse(reason);
    this.#abort.abort(new LeadershipLostError(reason));
  }

  /** Leadership ends: the lease never holds again, the signal aborts with `reason`. */
  end(reason: LeadershipLossReason): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#timer?.cancel();
    this.#until = Number.NEGATIVE_INFINITY;
    this.#abort.abort(new LeadershipLostError(reason));
  }
}

import type { Clock, Logger, Timer } from '@roster/kv-adapter';

/** The fraction of the workers by which each beat's start moves on: 1 − 1/φ. */
const GOLDEN_STRIDE = 0.381_966;

/** How many bursts a beat's steps are started in, spread over the first quarter of the period. */
const SLICES = 8;

/**
 * How late after its beat a worker's step may start, as a fraction of the period: the last of the
 * {@link SLICES} bursts, 7/32. A worker's steps are thus at most (1 + 7/32) periods apart (the
 * timing table's `pongPeriodMs` counts it).
 */
export const PONG_ROUND_LAG = (SLICES - 1) / (4 * SLICES);

/** What a {@link PongRound} drives: one step per beat. */
export interface RoundMember {
  step(): Promise<void>;
}

/**
 * One beat for all of a leader's PONG workers: every `periodMs` it starts the step of each
 * registered worker whose previous step has ended. No step waits for another: a worker still busy
 * with a slow key skips the beat, the others go on, and nothing here waits for the steps to end.
 * The beat runs while at least one worker is registered. A period given as a function is asked at
 * each beat (the leader's round backs off on a slow store: `pongPeriodMs`).
 *
 * A beat starts its steps in {@link SLICES} bursts, spread over the first quarter of the period: each
 * burst's commands leave together (one pipeline per connection or shard with ioredis'
 * auto-pipelining), and a client whose pool is smaller than the group (a database store's, eight
 * connections by default, for a thousand followers) holds an eighth of the round at a time, not
 * all of it. Started at once, the round queued behind the pool, and on a busy machine its oldest
 * waiters passed the operation timeout unsent, every beat (the leader process of a thousand members
 * on PostgreSQL failed 902 PONGs in 5 s, and the followers never PONGed stood against it).
 *
 * Each beat also starts from a different place in the workers' order (a stride of about 0.382 of
 * them): whatever part of a round a busy client fails, it is not the same followers every beat.
 */
export class PongRound {
  readonly #clock: Clock;
  readonly #periodMs: () => number;
  readonly #logger: Logger;
  /** Registered workers, with the step in progress when there is one. */
  readonly #members = new Map<RoundMember, Promise<void> | undefined>();
  #timer: Timer | undefined;
  /** The timers of the beat's later bursts. */
  #bursts: Timer[] = [];
  #next = 0;
  /** Where in the workers' order the last beat started (see {@link #beat}). */
  #start = 0;

  constructor(options: { clock: Clock; periodMs: number | (() => number); logger: Logger }) {
    this.#clock = options.clock;
    const { periodMs } = options;
    this.#periodMs = typeof periodMs === 'number' ? () => periodMs : periodMs;
    this.#logger = options.logger;
  }

  /** Registers `member`; its first step runs at once (on the next timer turn), then at every beat. */
  add(member: RoundMember): void {
    if (this.#members.has(member)) return;
    this.#members.set(member, undefined);
    this.#clock.setTimer(() => this.#run(member), 0);
    if (this.#timer === undefined) {
      const periodMs = this.#periodMs();
      this.#next = this.#clock.now() + periodMs;
      this.#timer = this.#clock.setTimer(() => this.#beat(), periodMs);
    }
  }

  /** Unregisters `member`; resolves when its step in progress (if any) has ended. */
  async remove(member: RoundMember): Promise<void> {
    const running = this.#members.get(member);
    this.#members.delete(member);
    if (this.#members.size === 0) {
      this.#timer?.cancel();
      this.#timer = undefined;
      for (const burst of this.#bursts) burst.cancel();
      this.#bursts = [];
    }
    await running;
  }

  #beat(): void {
    const periodMs = this.#periodMs();
    const members = [...this.#members.keys()];
    const n = members.length;
    // The golden ratio's stride: consecutive beats start far apart, and no run of beats keeps
    // returning to the same place, whatever the number of workers.
    this.#start = n === 0 ? 0 : (this.#start + Math.max(1, Math.round(n * GOLDEN_STRIDE))) % n;
    const ordered = Array.from({ length: n }, (_, i) => members[(this.#start + i) % n]!);
    const size = Math.ceil(n / SLICES);
    this.#bursts = [];
    for (let slice = 0; slice * size < n; slice++) {
      const burst = ordered.slice(slice * size, (slice + 1) * size);
      const run = (): void => burst.forEach((member) => this.#run(member));
      if (slice === 0) run();
      else this.#bursts.push(this.#clock.setTimer(run, (slice * periodMs) / (4 * SLICES)));
    }
    // Fixed rate: the next beat one period after this one was due, or at once when late.
    this.#next += periodMs;
    const now = this.#clock.now();
    if (this.#next < now) this.#next = now;
    this.#timer = n === 0 ? undefined : this.#clock.setTimer(() => this.#beat(), this.#next - now);
  }

  #run(member: RoundMember): void {
    if (!this.#members.has(member) || this.#members.get(member) !== undefined) return;
    const running = member
      .step()
      .catch((error: unknown) => this.#logger.error({ err: error, loop: 'pong-worker' }, 'loop step failed'))
      .finally(() => {
        if (this.#members.get(member) === running) this.#members.set(member, undefined);
      });
    this.#members.set(member, running);
  }
}

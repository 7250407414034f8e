import type { Clock, Logger, Timer } from '@roster/kv-adapter';

/** What a {@link PongRound} drives: one step per beat. */
export interface RoundMember {
  step(): Promise<void>;
}

/**
 * One beat for all of a leader's PONG workers: every `periodMs` it starts the step of each
 * registered worker whose previous step has ended, all in the same turn of the event loop, so that
 * their store commands leave together (one pipeline per connection or shard with ioredis'
 * auto-pipelining). No step waits for another: a worker still busy with a slow key skips the beat,
 * the others go on, and nothing here waits for the steps to end. The beat runs while at least one
 * worker is registered. A period given as a function is asked at each beat (the leader's round
 * backs off on a slow store: `pongPeriodMs`).
 */
export class PongRound {
  readonly #clock: Clock;
  readonly #periodMs: () => number;
  readonly #logger: Logger;
  /** Registered workers, with the step in progress when there is one. */
  readonly #members = new Map<RoundMember, Promise<void> | undefined>();
  #timer: Timer | undefined;
  #next = 0;

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
    }
    await running;
  }

  #beat(): void {
    for (const member of this.#members.keys()) this.#run(member);
    // Fixed rate: the next beat one period after this one was due, or at once when late.
    this.#next += this.#periodMs();
    const now = this.#clock.now();
    if (this.#next < now) this.#next = now;
    this.#timer = this.#members.size === 0 ? undefined : this.#clock.setTimer(() => this.#beat(), this.#next - now);
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

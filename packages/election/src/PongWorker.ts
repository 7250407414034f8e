import { Ticker, parseIdKeyValue } from '@roster/follower';
import { withDeadline, type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';

/** Options of {@link PongWorker}. */
export interface PongWorkerOptions {
  readonly kv: KV;
  /** The follower's id key; the worker moves it to where it finds the follower. */
  readonly key: CompoundKey;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly opTimeoutMs: number;
  /** Called on each news: a fresh PING. */
  readonly onPing: () => void;
  /** Called when the follower wrote `LEAVE`. */
  readonly onLeave: () => void;
}

/**
 * The leader's PONG worker for one follower (seed 003 §3–4): every interval it reads the
 * follower's id key, and when it finds a new `PING <seq>` it records the follower as alive and
 * answers `PONG <seq>` there. Each follower has its own worker, so one slow follower never delays
 * the others or the broadcast.
 *
 * The follower moves its id key to the next nonce when the key is unavailable; the worker reads
 * the nonce where it last found the follower and the next one (the whole window until its first
 * news, and again after T/2 without news), and follows it. News is a PING whose value changed
 * since the worker's previous read of that nonce, so leftovers of a dead follower never count.
 */
export class PongWorker {
  readonly #o: PongWorkerOptions;
  readonly #key: CompoundKey;
  readonly #ticker: Ticker;
  /** What this worker last read at each nonce (`null`: nothing there). */
  readonly #seen = new Map<number, string | null>();
  #lastNewsAt: number;
  #scanAll = true;

  constructor(options: PongWorkerOptions) {
    this.#o = options;
    this.#key = options.key;
    this.#lastNewsAt = options.clock.now();
    this.#ticker = new Ticker({ clock: options.clock, periodMs: options.intervalMs, logger: options.logger, name: 'pong-worker', step: () => this.step() });
  }

  /** Starts the worker, first round at once. */
  start(): void {
    this.#ticker.start();
  }

  /** Stops the worker; resolves when a round in progress has ended. */
  stop(): Promise<void> {
    return this.#ticker.stop();
  }

  /** One round: read, and PONG a new PING. */
  async step(): Promise<void> {
    const { kv, clock, opTimeoutMs, timeoutMs } = this.#o;
    const window = this.#key.window;
    const nonces = this.#scanAll || clock.now() - this.#lastNewsAt > timeoutMs / 2
      ? Array.from({ length: window }, (_, n) => n)
      : [...new Set([this.#key.nonce, (this.#key.nonce + 1) % window])];
    const reads = await Promise.all(
      nonces.map(async (nonce) => {
        const value = await withDeadline(clock, opTimeoutMs, 'id key read', kv.get(this.#key.at(nonce))).catch(() => undefined);
        return { nonce, value, parsed: value ? parseIdKeyValue(value) : undefined };
      }),
    );
    // News is a value that changed since this worker last read the same nonce: what an earlier
    // run of the same id, or a dead follower, left behind (a LEAVE, old PINGs) never counts.
    const news = reads.filter((r) => r.value !== undefined && this.#seen.has(r.nonce) && this.#seen.get(r.nonce) !== r.value);
    for (const r of reads) if (r.value !== undefined) this.#seen.set(r.nonce, r.value);
    // A LEAVE counts where the follower was last found.
    if (news.some((r) => r.parsed?.kind === 'leave' && r.nonce === this.#key.nonce)) {
      this.#o.onLeave();
      return;
    }
    // A fresh PING, at the nonce in use first, then at the others in order.
    const fresh = [...news]
      .sort((a, b) => Number(b.nonce === this.#key.nonce) - Number(a.nonce === this.#key.nonce))
      .find((r) => r.parsed?.kind === 'ping');
    if (fresh?.parsed?.kind !== 'ping') return;
    this.#scanAll = false;
    this.#lastNewsAt = clock.now();
    this.#key.moveTo(fresh.nonce);
    this.#o.onPing();
    const pong = `PONG ${fresh.parsed.seq}`;
    await withDeadline(clock, opTimeoutMs, 'PONG', kv.set(this.#key.current, pong)).then(
      () => this.#seen.set(fresh.nonce, pong),
      () => undefined,
    );
  }
}

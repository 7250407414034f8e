import { Ticker, parseIdKeyValue, withDeadline } from '@roster/follower';
import type { Clock, CompoundKey, KV, Logger } from '@roster/kv-adapter';

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
  readonly #kv: KV;
  readonly #key: CompoundKey;
  readonly #clock: Clock;
  readonly #opTimeoutMs: number;
  readonly #timeoutMs: number;
  readonly #onPing: () => void;
  readonly #onLeave: () => void;
  readonly #ticker: Ticker;
  /** What this worker last read at each nonce (`null`: nothing there). */
  readonly #seen = new Map<number, string | null>();
  #lastNewsAt: number;
  #scanAll = true;

  constructor(options: {
    kv: KV;
    key: CompoundKey;
    clock: Clock;
    logger: Logger;
    intervalMs: number;
    timeoutMs: number;
    opTimeoutMs: number;
    onPing: () => void;
    onLeave: () => void;
  }) {
    this.#kv = options.kv;
    this.#key = options.key;
    this.#clock = options.clock;
    this.#opTimeoutMs = options.opTimeoutMs;
    this.#timeoutMs = options.timeoutMs;
    this.#onPing = options.onPing;
    this.#onLeave = options.onLeave;
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
    const window = this.#key.window;
    const nonces = this.#scanAll || this.#clock.now() - this.#lastNewsAt > this.#timeoutMs / 2
      ? Array.from({ length: window }, (_, n) => n)
      : [...new Set([this.#key.nonce, (this.#key.nonce + 1) % window])];
    const reads = await Promise.all(
      nonces.map(async (nonce) => {
        const value = await withDeadline(this.#clock, this.#opTimeoutMs, 'id key read', this.#kv.get(this.#key.at(nonce))).catch(() => undefined);
        return { nonce, value, parsed: value ? parseIdKeyValue(value) : undefined };
      }),
    );
    // A LEAVE counts only where the follower was last found: one left at another nonce by an
    // earlier run of the same id (which had moved there) must not remove the node running now.
    if (reads.some((r) => r.parsed?.kind === 'leave' && r.nonce === this.#key.nonce)) {
      this.#onLeave();
      return;
    }
    // A PING is news only when the value at its nonce changed since this worker last read that
    // nonce: PINGs a dead follower left behind at other nonces never count. The nonce in use is
    // preferred, then the others in order.
    const fresh = [...reads]
      .sort((a, b) => Number(b.nonce === this.#key.nonce) - Number(a.nonce === this.#key.nonce))
      .find((r) => r.parsed?.kind === 'ping' && this.#seen.has(r.nonce) && this.#seen.get(r.nonce) !== r.value);
    for (const r of reads) if (r.value !== undefined) this.#seen.set(r.nonce, r.value);
    if (fresh?.parsed?.kind !== 'ping') return;
    this.#scanAll = false;
    this.#lastNewsAt = this.#clock.now();
    this.#key.moveTo(fresh.nonce);
    this.#onPing();
    const pong = `PONG ${fresh.parsed.seq}`;
    await withDeadline(this.#clock, this.#opTimeoutMs, 'PONG', this.#kv.set(this.#key.current, pong)).then(
      () => this.#seen.set(fresh.nonce, pong),
      () => undefined,
    );
  }
}

import { Ticker, parseIdKeyValue, withDeadline } from '@roster/follower';
import type { Clock, CompoundKey, KV, Logger } from '@roster/kv-adapter';

/**
 * The leader's PONG worker for one follower (seed 003 §3–4): every interval it reads the
 * follower's id key, and when it finds a new `PING <seq>` it records the follower as alive and
 * answers `PONG <seq>` there. Each follower has its own worker, so one slow follower never delays
 * the others or the broadcast.
 *
 * The follower moves its id key to the next nonce when the key is unavailable; the worker reads
 * the nonce where it last found the follower and the next one (the whole window on its first
 * round, or after a timeout without news), and follows it.
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
  #lastSeq: number | undefined;
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
    this.#scanAll = false;
    const reads = await Promise.all(
      nonces.map(async (nonce) => {
        const value = await withDeadline(this.#clock, this.#opTimeoutMs, 'id key read', this.#kv.get(this.#key.at(nonce))).catch(() => null);
        return { nonce, parsed: value === null ? undefined : parseIdKeyValue(value) };
      }),
    );
    // A LEAVE counts only where the follower was last found: one left at another nonce by an
    // earlier run of the same id (which had moved there) must not remove the node running now.
    if (reads.some((r) => r.parsed?.kind === 'leave' && r.nonce === this.#key.nonce)) {
      this.#onLeave();
      return;
    }
    // The live PING is the one that changed; prefer the nonce in use, then the others in order.
    const fresh = reads.find((r) => r.parsed?.kind === 'ping' && r.parsed.seq !== this.#lastSeq && r.nonce === this.#key.nonce)
      ?? reads.find((r) => r.parsed?.kind === 'ping' && r.parsed.seq !== this.#lastSeq);
    if (fresh?.parsed?.kind !== 'ping') return;
    const seq = fresh.parsed.seq;
    this.#lastSeq = seq;
    this.#lastNewsAt = this.#clock.now();
    this.#key.moveTo(fresh.nonce);
    this.#onPing();
    await withDeadline(this.#clock, this.#opTimeoutMs, 'PONG', this.#kv.set(this.#key.current, `PONG ${seq}`)).catch(() => undefined);
  }
}

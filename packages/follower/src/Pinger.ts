import { writeMoving, type Clock, type CompoundKey, type KV } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';
import { formatPing, parseIdKeyValue } from './idKey.js';

/**
 * A follower's side of the PING/PONG cycle, on its own id key, at one store command
 * per step: `exchange(idKey, "PING <seq>")` writes the PING and returns what it replaced. A PONG
 * there means the leader answered since our previous PING (the leader's PONG replaces our PING,
 * our next PING replaces the PONG); our own previous PING means it did not. When the key becomes
 * unavailable the pinger moves it to the next nonce, where the leader's PONG worker finds it.
 */
export class Pinger {
  readonly #kv: KV;
  readonly #key: CompoundKey;
  readonly #clock: Clock;
  readonly #opTimeoutMs: number;
  #seq = 0;
  #lastPongAt: number | undefined;
  #lastPongRoundTripMs: number | undefined;
  /** When the last PING was written and what it was, while not yet answered. */
  #pending: { value: string; at: number } | undefined;

  constructor(options: { kv: KV; key: CompoundKey; clock: Clock; opTimeoutMs: number }) {
    this.#kv = options.kv;
    this.#key = options.key;
    this.#clock = options.clock;
    this.#opTimeoutMs = options.opTimeoutMs;
  }

  /** Local time at which a PONG was last found, or `undefined` when none was seen yet. */
  get lastPongAt(): number | undefined {
    return this.#lastPongAt;
  }

  /**
   * Round trip of the last answered PING: from writing it to finding the leader's PONG in its
   * place (at the next step, so it is at most about one interval).
   */
  get lastPongRoundTripMs(): number | undefined {
    return this.#lastPongRoundTripMs;
  }

  /** The id key's nonce in use. */
  get nonce(): number {
    return this.#key.nonce;
  }

  /**
   * PINGs, and learns from the value replaced whether the previous PING was answered. One store
   * command. Rejects on store errors (the PING may or may not have been written).
   */
  async step(): Promise<void> {
    const seq = this.#seq + 1;
    const value = formatPing(seq, this.#lastPongRoundTripMs);
    const before = this.#key.nonce;
    const { result: previous, nonce } = await writeMoving(this.#key, (k) => this.#op('PING', (signal) => this.#kv.exchange(k, value, { signal })));
    const now = this.#clock.now();
    const pending = this.#pending;
    this.#seq = seq;
    this.#pending = { value, at: now };
    if (previous === null || pending === undefined || previous === pending.value) return;
    // A PONG in place of our PING: answered. (After a move, what the new nonce held says nothing.)
    if (parseIdKeyValue(previous)?.kind === 'pong' && nonce === before) {
      this.#lastPongAt = now;
      this.#lastPongRoundTripMs = now - pending.at;
    }
  }

  /** Tells the leader this node leaves: `LEAVE` at the id key. */
  async leave(): Promise<void> {
    await writeMoving(this.#key, (k) => this.#op('LEAVE', (signal) => this.#kv.set(k, 'LEAVE', { signal })));
  }

  /**
   * `work` within the operation timeout. Its signal goes to the store: a PING still waiting for a
   * connection when this node gives up is never sent (sent late, it would swallow the PONG that
   * answered the previous one).
   */
  #op<T>(what: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withDeadline(this.#clock, this.#opTimeoutMs, what, work);
  }
}

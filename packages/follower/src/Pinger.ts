import { withDeadline, writeMoving, type Clock, type CompoundKey, type KV } from '@roster/kv-adapter';

/** Values at a follower's id key. */
export type IdKeyValue = { kind: 'ping'; seq: number } | { kind: 'pong'; seq: number } | { kind: 'leave' };

/** Parses an id-key value: `PING <seq>`, `PONG <seq>` or `LEAVE`; `undefined` for anything else. */
export function parseIdKeyValue(value: string): IdKeyValue | undefined {
  if (value === 'LEAVE') return { kind: 'leave' };
  const m = /^(PING|PONG) (0|[1-9]\d{0,15})$/.exec(value);
  if (!m) return undefined;
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(seq)) return undefined;
  return { kind: m[1] === 'PING' ? 'ping' : 'pong', seq };
}

/**
 * A follower's side of the PING/PONG cycle (seed 003 §3), on its own id key: each step reads the
 * key for the leader's `PONG <seq>`, then writes the next `PING <seq>`. When the key becomes
 * unavailable the pinger moves it to the next nonce, where the leader's PONG worker finds it.
 */
export class Pinger {
  readonly #kv: KV;
  readonly #key: CompoundKey;
  readonly #clock: Clock;
  readonly #opTimeoutMs: number;
  #seq = 0;
  #lastPongAt: number | undefined;
  #lastRttMs: number | undefined;
  /** When each of the last few PINGs was written, by sequence number. */
  readonly #sentAt = new Map<number, number>();

  constructor(options: { kv: KV; key: CompoundKey; clock: Clock; opTimeoutMs: number }) {
    this.#kv = options.kv;
    this.#key = options.key;
    this.#clock = options.clock;
    this.#opTimeoutMs = options.opTimeoutMs;
  }

  /** Local time of the last PONG seen, or `undefined` when none was seen yet. */
  get lastPongAt(): number | undefined {
    return this.#lastPongAt;
  }

  /** Round trip of the last answered PING: from writing `PING <seq>` to reading `PONG <seq>`. */
  get lastRttMs(): number | undefined {
    return this.#lastRttMs;
  }

  /** The id key's nonce in use. */
  get nonce(): number {
    return this.#key.nonce;
  }

  /** Forgets PONGs seen so far (e.g. when following a new leader). */
  resetPongs(): void {
    this.#lastPongAt = undefined;
  }

  /** Reads the PONG of the last PING (if any), then PINGs again. Rejects on store errors. */
  async step(): Promise<void> {
    if (this.#seq > 0) {
      const value = await this.#op('id key read', this.#kv.get(this.#key.current)).catch(() => null);
      const parsed = value === null ? undefined : parseIdKeyValue(value);
      if (parsed?.kind === 'pong' && parsed.seq <= this.#seq && parsed.seq > this.#seq - 3) {
        this.#lastPongAt = this.#clock.now();
        const sent = this.#sentAt.get(parsed.seq);
        if (sent !== undefined) this.#lastRttMs = this.#lastPongAt - sent;
      }
    }
    const seq = this.#seq + 1;
    await writeMoving(this.#key, (k) => this.#op('PING', this.#kv.set(k, `PING ${seq}`)));
    this.#seq = seq;
    this.#sentAt.set(seq, this.#clock.now());
    this.#sentAt.delete(seq - 3);
  }

  /** Tells the leader this node leaves: `LEAVE` at the id key. */
  async leave(): Promise<void> {
    await writeMoving(this.#key, (k) => this.#op('LEAVE', this.#kv.set(k, 'LEAVE')));
  }

  #op<T>(what: string, work: Promise<T>): Promise<T> {
    return withDeadline(this.#clock, this.#opTimeoutMs, what, work);
  }
}

import { withDeadline, writeMoving, type Clock, type CompoundKey, type KV } from '@roster/kv-adapter';

/**
 * Values at a follower's id key: `PING <seq>` (with the follower's last measured PING → PONG
 * round trip in ms, `PING <seq> <rttMs>`, when it has one), `PONG <seq>` or `LEAVE`.
 */
export type IdKeyValue = { kind: 'ping'; seq: number; rttMs?: number } | { kind: 'pong'; seq: number } | { kind: 'leave' };

const UINT = '(0|[1-9]\\d{0,15})';
const PING_OR_PONG = new RegExp(`^(PING|PONG) ${UINT}(?: ${UINT})?$`);

/**
 * Parses an id-key value strictly: `PING <seq>`, `PING <seq> <rttMs>`, `PONG <seq>` or `LEAVE`,
 * single spaces, unsigned decimal integers without leading zeros; `undefined` for anything else.
 */
export function parseIdKeyValue(value: string): IdKeyValue | undefined {
  if (value === 'LEAVE') return { kind: 'leave' };
  const m = PING_OR_PONG.exec(value);
  if (!m) return undefined;
  const seq = Number(m[2]);
  if (!Number.isSafeInteger(seq)) return undefined;
  if (m[1] === 'PONG') return m[3] === undefined ? { kind: 'pong', seq } : undefined;
  if (m[3] === undefined) return { kind: 'ping', seq };
  const rttMs = Number(m[3]);
  return Number.isSafeInteger(rttMs) ? { kind: 'ping', seq, rttMs } : undefined;
}

/** Formats a PING: `PING <seq>`, or `PING <seq> <rttMs>` with the round trip rounded to a ms. */
export function formatPing(seq: number, rttMs?: number): string {
  return rttMs === undefined ? `PING ${seq}` : `PING ${seq} ${Math.max(0, Math.round(rttMs))}`;
}

/**
 * A follower's side of the PING/PONG cycle (seed 003 §3), on its own id key, at one store command
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
  #lastRttMs: number | undefined;
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

  /**
   * PINGs, and learns from the value replaced whether the previous PING was answered. One store
   * command. Rejects on store errors (the PING may or may not have been written).
   */
  async step(): Promise<void> {
    const seq = this.#seq + 1;
    const value = formatPing(seq, this.#lastRttMs);
    const before = this.#key.nonce;
    const { result: previous, nonce } = await writeMoving(this.#key, (k) => this.#op('PING', this.#kv.exchange(k, value)));
    const now = this.#clock.now();
    const pending = this.#pending;
    this.#seq = seq;
    this.#pending = { value, at: now };
    if (previous === null || pending === undefined || previous === pending.value) return;
    // A PONG in place of our PING: answered. (After a move, what the new nonce held says nothing.)
    if (parseIdKeyValue(previous)?.kind === 'pong' && nonce === before) {
      this.#lastPongAt = now;
      this.#lastRttMs = now - pending.at;
    }
  }

  /** Tells the leader this node leaves: `LEAVE` at the id key. */
  async leave(): Promise<void> {
    await writeMoving(this.#key, (k) => this.#op('LEAVE', this.#kv.set(k, 'LEAVE')));
  }

  #op<T>(what: string, work: Promise<T>): Promise<T> {
    return withDeadline(this.#clock, this.#opTimeoutMs, what, work);
  }
}

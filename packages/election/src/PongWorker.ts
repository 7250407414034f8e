import { parseIdKeyValue } from '@roster/follower';
import { Ticker } from './Ticker.js';
import { type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';
import type { PongRound } from './PongRound.js';

/**
 * Bytes of an id key read by a PONG worker looking for a follower that moved: more than the longest
 * valid value (`PING <seq> <pongRoundTripMs>`, at most 38 bytes).
 */
const ID_VALUE_READ_BYTES = 64;

/** Options of {@link PongWorker}. */
export interface PongWorkerOptions {
  readonly kv: KV;
  /** The follower's id key; the worker moves it to where it finds the follower. */
  readonly key: CompoundKey;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalMs: number;
  /** With no news for longer than this, the worker looks for its follower at the other nonces. */
  readonly quietMs: number;
  readonly opTimeoutMs: number;
  /**
   * The beat shared by all the leader's workers, so that their commands of one interval leave
   * together. @defaultValue a timer of the worker's own
   */
  readonly round?: PongRound;
  /** Called on each news: a fresh PING, with the round trip the follower reported in it, if any. */
  readonly onPing: (pongRoundTripMs?: number) => void;
  /** Called when the follower wrote `LEAVE`. */
  readonly onLeave: () => void;
  /** Called when a PONG got no answer from the store in time (timed out or failed). */
  readonly onFailed?: () => void;
}

/**
 * The leader's PONG worker for one follower. Every interval it answers with one
 * store command, `exchange(idKey, "PONG <seq>")` at the nonce where it last found the follower:
 * the value it replaces is the news. A `PING` there that is not what this worker found before
 * (its own PONG) is a fresh PING: the follower is alive. A `LEAVE` there means the follower left.
 * Each follower has its own worker, so one slow follower never delays the others or the broadcast.
 *
 * The follower moves its id key to the next nonce when the key is unavailable. When the worker
 * has had no news for more than `quietMs` (1.5 intervals) (or before its first) and its PONG found no fresh
 * PING either, it then reads the other nonces of the window, and follows the follower to one whose PING changed since its previous
 * read there. News needs a value this worker saw before at the same nonce, so what a dead
 * follower, or an earlier run of the same id, left behind (old PINGs, a LEAVE) never counts.
 */
export class PongWorker {
  readonly #o: PongWorkerOptions;
  readonly #key: CompoundKey;
  readonly #ticker: Ticker | undefined;
  /** What this worker last found (read) or left (its PONG) at each nonce; `null`: nothing there. */
  readonly #seen = new Map<number, string | null>();
  #lastNewsAt: number | undefined;
  /** The sequence number of the last PING found. */
  #seq = 0;
  #failed = false;

  constructor(options: PongWorkerOptions) {
    this.#o = options;
    this.#key = options.key;
    this.#ticker = options.round
      ? undefined
      : new Ticker({ clock: options.clock, periodMs: options.intervalMs, logger: options.logger, name: 'pong-worker', step: () => this.step() });
  }

  /** Starts the worker, first round at once. */
  start(): void {
    if (this.#o.round) this.#o.round.add(this);
    else this.#ticker!.start();
  }

  /** Stops the worker; resolves when a round in progress has ended. */
  stop(): Promise<void> {
    return this.#o.round ? this.#o.round.remove(this) : this.#ticker!.stop();
  }

  /** One round: PONG where the follower was last found (and, when it went quiet, look elsewhere). */
  async step(): Promise<void> {
    const { clock, quietMs } = this.#o;
    const window = this.#key.window;
    const here = this.#key.nonce;
    const failedBefore = this.#failed;
    const silent = this.#lastNewsAt === undefined || clock.now() - this.#lastNewsAt > quietMs;
    // The first PONG here cannot tell a fresh PING from an old one; nor could reads of the other
    // nonces, so they wait for the next round (a new leader's N workers send N commands, not 3N).
    const first = !this.#seen.has(here);
    const answered = await this.#pong(here);
    if (answered === undefined) this.#o.onFailed?.();
    if (answered === 'leave') {
      this.#o.onLeave();
      return;
    }
    // Where the follower may have moved: its key failed under this worker, now or at the last round,
    // as its own PING would have (`#failed`), or a PONG that reached the key found no fresh PING
    // for a while. A PONG that timed out on a store slow as a whole tells nothing of where the
    // follower is: the follower stays at its nonce on such timeouts too.
    const look = answered === undefined ? this.#failed || failedBefore : answered === 'none' && (failedBefore || silent);
    if (!look || window === 1 || (first && answered !== undefined)) return;
    // A fresh PING at another nonce means the follower moved there.
    const others = Array.from({ length: window }, (_, n) => n).filter((n) => n !== here);
    const reads = await Promise.all(others.map((n) => this.#read(n)));
    const moved = reads.find((r) => r !== undefined);
    if (moved === undefined) return;
    this.#news(moved.seq, moved.pongRoundTripMs);
    this.#key.moveTo(moved.nonce);
    await this.#pong(moved.nonce);
  }

  /**
   * `exchange` at `nonce`: PONG, and learn what it replaced. Reports `'ping'` (a fresh PING,
   * recorded), `'leave'`, `'none'`, or `undefined` when the store did not answer. A failure the
   * follower would move on (`CompoundKey.failedOn`: the key unavailable, or a timeout while the
   * store otherwise answers in time) makes the next round look at the other nonces at once; a
   * timeout on a store slow as a whole does not (the follower stays at its nonce too, and three
   * reads more for each PONG that timed out would only slow the store further).
   */
  async #pong(nonce: number): Promise<'ping' | 'leave' | 'none' | undefined> {
    const { kv, clock, opTimeoutMs } = this.#o;
    const pong = `PONG ${this.#seq}`;
    let previous: string | null;
    try {
      // The deadline's signal goes to the store: a PONG still waiting for a connection when the
      // worker gives up is never sent (sent late, it would replace a PING nobody reads).
      previous = await withDeadline(clock, opTimeoutMs, 'PONG', (signal) => kv.exchange(this.#key.at(nonce), pong, { signal }));
    } catch (error) {
      this.#failed = this.#key.failedOn(error);
      return undefined;
    }
    this.#failed = false;
    const before = this.#seen.get(nonce);
    this.#seen.set(nonce, pong);
    if (before === undefined || previous === null || previous === before) return 'none';
    const parsed = parseIdKeyValue(previous);
    if (parsed?.kind === 'leave' && nonce === this.#key.nonce) return 'leave';
    if (parsed?.kind !== 'ping') return 'none';
    this.#news(parsed.seq, parsed.pongRoundTripMs);
    return 'ping';
  }

  /**
   * A read of another nonce: the fresh PING it holds, if any. One `getRange` of the first
   * {@link ID_VALUE_READ_BYTES} bytes, a plain command: every valid id-key value is shorter, so a
   * value that fills the range is not one.
   */
  async #read(nonce: number): Promise<{ nonce: number; seq: number; pongRoundTripMs: number | undefined } | undefined> {
    const { kv, clock, opTimeoutMs } = this.#o;
    let value: string | null;
    try {
      value = (await withDeadline(clock, opTimeoutMs, 'id key read', (signal) => kv.getRange(this.#key.at(nonce), 0, ID_VALUE_READ_BYTES - 1, { signal }))) || null;
    } catch {
      return undefined;
    }
    const before = this.#seen.get(nonce);
    this.#seen.set(nonce, value);
    if (before === undefined || value === null || value === before) return undefined;
    const parsed = parseIdKeyValue(value);
    return parsed?.kind === 'ping' ? { nonce, seq: parsed.seq, pongRoundTripMs: parsed.pongRoundTripMs } : undefined;
  }

  #news(seq: number, pongRoundTripMs: number | undefined): void {
    this.#seq = seq;
    this.#lastNewsAt = this.#o.clock.now();
    this.#o.onPing(pongRoundTripMs);
  }
}

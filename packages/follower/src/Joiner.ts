import { RosterError, writeMoving, type Clock, type CompoundKey, type KV } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';
import { formatMember, type Member } from './ids.js';

/**
 * Joins a follower to the group by appending ` <id>` (or ` <id>:<weight>`) to
 * the join key. Appends are atomic, so many nodes can join at once; the leader takes the key's
 * content atomically, so nothing appended at the same moment is lost. When the join key is
 * unavailable the joiner moves to its next nonce; the leader polls every nonce of the window.
 */
export class Joiner {
  readonly #kv: KV;
  readonly #key: CompoundKey;
  readonly #clock: Clock;
  readonly #token: string;
  readonly #opTimeoutMs: number;
  #lastAppendAt: number | undefined;
  /** When the last append that failed was tried. */
  #failedAt: number | undefined;

  constructor(options: { kv: KV; key: CompoundKey; clock: Clock; self: Member; opTimeoutMs: number }) {
    this.#kv = options.kv;
    this.#key = options.key;
    this.#clock = options.clock;
    this.#token = ` ${formatMember(options.self)}`;
    this.#opTimeoutMs = options.opTimeoutMs;
  }

  /** Forgets the last append, so that the next {@link due} check says yes. */
  reset(): void {
    this.#lastAppendAt = undefined;
    this.#failedAt = undefined;
  }

  /**
   * True when no append happened yet, or the last one is older than `retryMs`; and, after an
   * append that failed, once `afterFailureMs` has passed since it was tried (a slow store is not
   * asked again at once: the failed append may even have landed).
   */
  due(retryMs: number, afterFailureMs = 0): boolean {
    const now = this.#clock.now();
    if (this.#failedAt !== undefined && now - this.#failedAt < afterFailureMs) return false;
    return this.#lastAppendAt === undefined || now - this.#lastAppendAt >= retryMs;
  }

  /**
   * Appends this node's id to the join key, at the next nonce when this one is unavailable or full
   * (its value would grow past the store's size limit: thousands of ids appended within one
   * interval). Rejects on store errors.
   */
  async append(): Promise<void> {
    const triedAt = this.#clock.now();
    let last: unknown;
    for (let attempt = 0; attempt < this.#key.window; attempt++) {
      try {
        // The deadline's signal goes to the store: a join still waiting for a connection when this
        // node gives up is never sent, and its timeout moves no key (`queued`).
        await writeMoving(this.#key, (k) => withDeadline(this.#clock, this.#opTimeoutMs, 'join append', (signal) => this.#kv.append(k, this.#token, { signal })));
        this.#lastAppendAt = this.#clock.now();
        this.#failedAt = undefined;
        return;
      } catch (error) {
        if (!RosterError.is(error, 'KV_VALUE_TOO_LARGE')) {
          this.#failedAt = triedAt;
          throw error;
        }
        last = error;
        this.#key.advance();
      }
    }
    this.#failedAt = triedAt;
    throw last;
  }
}

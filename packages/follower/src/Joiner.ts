import { withDeadline, writeMoving, type Clock, type CompoundKey, type KV } from '@roster/kv-adapter';
import { formatMember, type Member } from './ids.js';

/**
 * Joins a follower to the cluster (seed 003 §3) by appending ` <id>` (or ` <id>:<weight>`) to
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
  }

  /** True when no append happened yet, or the last one is older than `retryMs`. */
  due(retryMs: number): boolean {
    return this.#lastAppendAt === undefined || this.#clock.now() - this.#lastAppendAt >= retryMs;
  }

  /** Appends this node's id to the join key. Rejects on store errors. */
  async append(): Promise<void> {
    await writeMoving(this.#key, (k) => withDeadline(this.#clock, this.#opTimeoutMs, 'join append', this.#kv.append(k, this.#token)));
    this.#lastAppendAt = this.#clock.now();
  }
}

import { readWindow, type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import { bestBroadcast, parseBroadcast, type Broadcast } from './broadcast.js';

/** One nonce of the leader key as read. */
export type LeaderSlot =
  | { readonly nonce: number; readonly state: 'empty' }
  | { readonly nonce: number; readonly state: 'broadcast'; readonly raw: string; readonly broadcast: Broadcast }
  | { readonly nonce: number; readonly state: 'garbage'; readonly raw: string; readonly reason: string }
  | { readonly nonce: number; readonly state: 'unavailable'; readonly error: unknown };

/** The result of reading the whole leader-key window once. */
export interface LeaderWindowRead {
  /** Every nonce of the window, in order. */
  readonly slots: readonly LeaderSlot[];
  /** The valid broadcasts found. */
  readonly broadcasts: readonly Broadcast[];
  /** The best broadcast (see `bestBroadcast`), if any. */
  readonly best: Broadcast | undefined;
  /** True when at least one nonce could be read. */
  readonly reachable: boolean;
  /** Local time at which the read started. */
  readonly startedAt: number;
  /** Local time at which the read completed. */
  readonly at: number;
}

/** Options of {@link LeaderWindow}. */
export interface LeaderWindowOptions {
  readonly kv: KV;
  readonly key: CompoundKey;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Longest a window read may take before it counts as failed. */
  readonly timeoutMs: number;
  /** Called once for every value that does not parse as a broadcast. */
  readonly onGarbage?: (nonce: number, raw: string, reason: string) => void;
}

/**
 * Reads the leader key across its whole nonce window (seed 003 §1–2): a writer that moved to
 * another nonce is found there, unavailable nonces are skipped, and values that do not parse are
 * reported and ignored, never adopted.
 */
export class LeaderWindow {
  readonly #o: LeaderWindowOptions;
  constructor(options: LeaderWindowOptions) {
    this.#o = options;
  }

  /** The compound key read. */
  get key(): CompoundKey {
    return this.#o.key;
  }

  /** Reads every nonce of the window in parallel. Never rejects. */
  async read(signal?: AbortSignal): Promise<LeaderWindowRead> {
    const { kv, key, clock, timeoutMs } = this.#o;
    const startedAt = clock.now();
    // Each nonce has its own deadline: a hung shard makes its nonce unavailable, not the window.
    const raw = await readWindow(kv, key, { ...(signal && { signal }), deadline: { clock, ms: timeoutMs } });
    const slots = raw.map((s): LeaderSlot => {
      if (!s.ok) return { nonce: s.nonce, state: 'unavailable', error: s.error };
      if (s.value === null) return { nonce: s.nonce, state: 'empty' };
      const parsed = parseBroadcast(s.value);
      if (parsed.ok) return { nonce: s.nonce, state: 'broadcast', raw: s.value, broadcast: parsed.broadcast };
      this.#o.onGarbage?.(s.nonce, s.value, parsed.reason);
      this.#o.logger.warn({ key: key.at(s.nonce), reason: parsed.reason }, 'ignoring a leader-key value that does not parse');
      return { nonce: s.nonce, state: 'garbage', raw: s.value, reason: parsed.reason };
    });
    const broadcasts = slots.flatMap((s) => (s.state === 'broadcast' ? [s.broadcast] : []));
    return {
      slots,
      broadcasts,
      best: bestBroadcast(broadcasts),
      reachable: slots.some((s) => s.state !== 'unavailable'),
      startedAt,
      at: clock.now(),
    };
  }
}

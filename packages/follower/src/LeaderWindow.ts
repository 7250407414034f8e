import { readWindow, withDeadline, type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import { bestBroadcast, formatBroadcast, listEpoch, MAX_HEADER_BYTES, parseBroadcast, parseHeader, sameLeadership, type Broadcast } from './broadcast.js';

/** One nonce of the leader key as read. */
export type LeaderSlot =
  | { readonly nonce: number; readonly state: 'empty' }
  | { readonly nonce: number; readonly state: 'broadcast'; readonly raw: string; readonly broadcast: Broadcast }
  | { readonly nonce: number; readonly state: 'garbage'; readonly raw: string; readonly reason: string }
  | { readonly nonce: number; readonly state: 'unavailable'; readonly error: unknown };

/** The `error` of the nonces a {@link LeaderWindow.poll} did not read (they are `'unavailable'` to it). */
export const NOT_READ = 'not read: this poll read one nonce';

/** The result of reading the leader-key window once. */
export interface LeaderWindowRead {
  /** Every nonce of the window, in order (a poll marks those it did not read unavailable, with {@link NOT_READ}). */
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
  /** True when every nonce of the window was read; false for a poll of one nonce. */
  readonly scanned: boolean;
}

/** Options of {@link LeaderWindow}. */
export interface LeaderWindowOptions {
  readonly kv: KV;
  readonly key: CompoundKey;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Longest a window read may take before it counts as failed. */
  readonly timeoutMs: number;
  /**
   * {@link LeaderWindow.poll} scans the whole window when the Version it follows has been still for
   * longer than this (so a claim made elsewhere is found within about this plus one poll).
   * @defaultValue 0: every poll scans
   */
  readonly stillMs?: number;
  /** {@link LeaderWindow.poll} scans the whole window at least this often. @defaultValue 0: every poll scans */
  readonly scanEveryMs?: number;
  /** Called once for every value that does not parse as a broadcast. */
  readonly onGarbage?: (nonce: number, raw: string, reason: string) => void;
}

/** What a poll knows of the broadcast it follows. */
interface Known {
  readonly nonce: number;
  readonly broadcast: Broadcast;
  /** Bytes of its header `Era Nonce Version Id `. */
  readonly headerBytes: number;
  /** Local time at which its Version last moved. */
  readonly movedAt: number;
}

/** Bytes read beyond the known header, so that a Version that gained digits still fits. */
const HEADER_SLACK = 8;

/**
 * Reads the leader key (seed 003 §1–2), in two ways:
 *
 * - {@link read} reads every nonce of the window in parallel: a writer that moved to another nonce
 *   is found there, unavailable nonces are skipped, and values that do not parse are reported and
 *   ignored, never adopted. Candidates and leaders use it.
 * - {@link poll} is a follower's cheap read: the first bytes of the one nonce where the best
 *   broadcast was last found (`getRange`, the header `Era Nonce Version Id` and a few bytes), and
 *   the whole value only when the leadership or the list epoch of its Version changed (see
 *   `LIST_STRIDE`). It falls back to a full {@link read} when it knows no broadcast, when that
 *   nonce is unavailable, empty or garbage, when the Version has been still for `stillMs`, and
 *   every `scanEveryMs`.
 */
export class LeaderWindow {
  readonly #o: LeaderWindowOptions;
  #known: Known | undefined;
  #scannedAt = Number.NEGATIVE_INFINITY;

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
    const raw = await withDeadline(clock, timeoutMs, 'leader window read', readWindow(kv, key, { signal })).catch((error: unknown) =>
      key.keys().map((_, nonce) => ({ nonce, ok: false as const, error })),
    );
    const slots = raw.map((s): LeaderSlot => {
      if (!s.ok) return { nonce: s.nonce, state: 'unavailable', error: s.error };
      if (s.value === null) return { nonce: s.nonce, state: 'empty' };
      return this.#parse(s.nonce, s.value);
    });
    const broadcasts = slots.flatMap((s) => (s.state === 'broadcast' ? [s.broadcast] : []));
    const best = bestBroadcast(broadcasts);
    const at = clock.now();
    this.#scannedAt = startedAt;
    const found = slots.find((s): s is Extract<LeaderSlot, { state: 'broadcast' }> => s.state === 'broadcast' && s.broadcast === best);
    this.#know(found && { nonce: found.nonce, broadcast: found.broadcast, headerBytes: parseHeader(found.raw)?.length ?? MAX_HEADER_BYTES }, at);
    return { slots, broadcasts, best, reachable: slots.some((s) => s.state !== 'unavailable'), startedAt, at, scanned: true };
  }

  /**
   * A follower's read: in steady state one `getRange` of the header at the nonce where the best
   * broadcast was last found; a `get` of the whole value when its leadership or list epoch moved;
   * a full {@link read} when needed (see the class comment). Never rejects.
   */
  async poll(signal?: AbortSignal): Promise<LeaderWindowRead> {
    const { kv, key, clock, timeoutMs } = this.#o;
    const startedAt = clock.now();
    const known = this.#known;
    const stillMs = this.#o.stillMs ?? 0;
    const scanEveryMs = this.#o.scanEveryMs ?? 0;
    if (known === undefined || startedAt - this.#scannedAt >= scanEveryMs || startedAt - known.movedAt > stillMs) return this.read(signal);
    const k = key.at(known.nonce);
    let slot: LeaderSlot | undefined;
    try {
      const want = known.headerBytes + HEADER_SLACK;
      const head = await withDeadline(clock, timeoutMs, 'leader header read', kv.getRange(k, 0, want - 1, { signal }));
      slot = this.#fromHead(known, head, want);
      if (slot === undefined) {
        const value = await withDeadline(clock, timeoutMs, 'leader key read', kv.get(k, { signal }));
        slot = value === null ? { nonce: known.nonce, state: 'empty' } : this.#parse(known.nonce, value);
      }
    } catch {
      return this.read(signal);
    }
    if (slot.state !== 'broadcast') return this.read(signal);
    const at = clock.now();
    this.#know({ nonce: slot.nonce, broadcast: slot.broadcast, headerBytes: parseHeader(slot.raw.slice(0, MAX_HEADER_BYTES))?.length ?? MAX_HEADER_BYTES }, at);
    const slots = key.keys().map((_, nonce): LeaderSlot => (nonce === slot.nonce ? slot : { nonce, state: 'unavailable', error: NOT_READ }));
    return { slots, broadcasts: [slot.broadcast], best: slot.broadcast, reachable: true, startedAt, at, scanned: false };
  }

  /**
   * What the first bytes of the known nonce say: the whole value when it was short enough, the
   * known broadcast at a later Version when only the Version moved within its list epoch;
   * `undefined` when the whole value must be read.
   */
  #fromHead(known: Known, head: string, want: number): LeaderSlot | undefined {
    const nonce = known.nonce;
    if (head === '') return { nonce, state: 'empty' };
    if (Buffer.byteLength(head) < want) return this.#parse(nonce, head);
    const parsed = parseHeader(head);
    if (parsed === undefined) return undefined;
    const h = parsed.header;
    const b = known.broadcast;
    const sameList = sameLeadership(b, { ...h, members: [] }) && h.version >= b.version && h.version > 0 && listEpoch(h.version) === listEpoch(b.version);
    if (!sameList) return undefined;
    const broadcast: Broadcast = h.version === b.version ? b : { ...b, version: h.version };
    // The members did not change: the raw value is rebuilt only if someone asks for it.
    return {
      nonce,
      state: 'broadcast',
      broadcast,
      get raw() {
        return formatBroadcast(broadcast);
      },
    };
  }

  #know(next: Omit<Known, 'movedAt'> | undefined, at: number): void {
    const prev = this.#known;
    if (next === undefined) {
      this.#known = undefined;
      return;
    }
    const moved = prev === undefined || !sameLeadership(prev.broadcast, next.broadcast) || prev.broadcast.version !== next.broadcast.version;
    this.#known = { ...next, movedAt: moved ? at : prev.movedAt };
  }

  #parse(nonce: number, value: string): LeaderSlot {
    const parsed = parseBroadcast(value);
    if (parsed.ok) return { nonce, state: 'broadcast', raw: value, broadcast: parsed.broadcast };
    this.#o.onGarbage?.(nonce, value, parsed.reason);
    this.#o.logger.warn({ key: this.#o.key.at(nonce), reason: parsed.reason }, 'ignoring a leader-key value that does not parse');
    return { nonce, state: 'garbage', raw: value, reason: parsed.reason };
  }
}

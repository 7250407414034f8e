import { formatBroadcast, formatHeader, type Broadcast, type BroadcastHeader } from './broadcast.js';
import { isKeyFailure, type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import type { ListCache, ListId } from './listStep.js';

// What a read of the leader-key window takes and returns, and what its readers conclude from it.

/** One nonce of the leader key as read. */
export type LeaderSlot =
  | { readonly nonce: number; readonly state: 'empty' }
  | { readonly nonce: number; readonly state: 'broadcast'; readonly raw: string; readonly broadcast: Broadcast }
  | { readonly nonce: number; readonly state: 'garbage'; readonly raw: string; readonly reason: string }
  /**
   * Read by its header only (`LeaderWindow.check`): a leadership no better than the reader's
   * own, or an older version of it, whose members the reader does not need.
   */
  | { readonly nonce: number; readonly state: 'behind'; readonly header: BroadcastHeader }
  | { readonly nonce: number; readonly state: 'unavailable'; readonly error: unknown };

/** The `error` of the nonces a `LeaderWindow.poll` did not read (they are `'unavailable'` to it). */
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
  /** True when every nonce of the window was looked at (a poll may read only their headers); false for a poll of one nonce. */
  readonly scanned: boolean;
  /**
   * The header of a value that supersedes what the reader follows (a poll: a later Version of its
   * leadership, or a better leadership) or compares with (`own` of a `LeaderWindow.check`: a
   * later Version of it), whose whole value (a new member list) could not be read; or, to a poll
   * that knows no broadcast yet, the header of the best value it could not read whole. Someone is
   * publishing; the value is read again at the next read.
   */
  readonly moving?: BroadcastHeader;
}

/**
 * True when `read` read every nonce of the window: none failed (unavailable, or slower than the
 * deadline) and none was left unread by a poll ({@link NOT_READ}). A nonce not read may hold the
 * leadership a reader remembers; an observer moves on to a worse one only on such a read.
 *
 * @example
 * ```ts
 * const read = await window.read();
 * if (readEveryNonce(read)) {
 *   // nothing the read did not show can hide in the window
 * }
 * ```
 */
export function readEveryNonce(read: LeaderWindowRead): boolean {
  return read.slots.every((s) => s.state !== 'unavailable');
}

/**
 * True when `read` rules out a broadcast at every nonce below `nonce`: each was read, or is known
 * unavailable (its read failed with a key failure, `isKeyFailure`: the key's shard is down, or the
 * nonce's own deadline passed, as on a frozen shard), where nobody can write either. A nonce that
 * failed otherwise (the store failed on it while other nonces answered, as a store whose clients
 * are reconnecting does) or that a poll did not read ({@link NOT_READ}) is unknown, not absent: a
 * better claim may be there. A candidate confirms only on a read for which this holds below its
 * claim (see `decide` in `@roster/election`).
 *
 * @example
 * ```ts
 * const read = await window.read();
 * if (coversBelow(read, claim.nonce)) {
 *   // no claim of the same era can hide at a lower nonce
 * }
 * ```
 */
export function coversBelow(read: LeaderWindowRead, nonce: number): boolean {
  return read.slots.every((s) => s.nonce >= nonce || s.state !== 'unavailable' || isKeyFailure(s.error));
}

/** The `error` of a nonce whose list another reader sharing the cache was fetching, and failed to. */
export const SHARED_READ_FAILED = 'the read of this list by another reader sharing the list cache failed';

/** A slot holding `broadcast`, whose raw text is built only if someone asks for it. */
export function lazySlot(nonce: number, broadcast: Broadcast): LeaderSlot {
  return {
    nonce,
    state: 'broadcast',
    broadcast,
    get raw() {
      return formatBroadcast(broadcast);
    },
  };
}

/** Bytes read beyond the known header, so that a Version that gained digits still fits. */
export const HEADER_SLACK = 8;

export function broadcastsOf(slots: readonly LeaderSlot[]): Broadcast[] {
  return slots.flatMap((s) => (s.state === 'broadcast' ? [s.broadcast] : []));
}

/** Bytes of a slot's header `Era Nonce Version Id `, from its broadcast (its raw value may be built lazily). */
export function headerBytesOf(slot: Extract<LeaderSlot, { state: 'broadcast' }>): number {
  return Buffer.byteLength(formatHeader(slot.broadcast));
}

/** A leader's own last publication, as `LeaderWindow.check` compares the window with it. */
export interface OwnPublication {
  /** The nonce it was written at. */
  readonly nonce: number;
  readonly broadcast: Broadcast;
  /** Its exact text. */
  readonly raw: string;
}

/** Options of `LeaderWindow`. */
export interface LeaderWindowOptions {
  readonly kv: KV;
  readonly key: CompoundKey;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Longest a window read may take before it counts as failed. */
  readonly opTimeoutMs: number;
  /** How long a read may spend on list steps before it reads the whole list instead. */
  readonly listStepBudgetMs: number;
  /**
   * `LeaderWindow.poll` scans the whole window when the Version it follows has been still for
   * longer than this (so a claim made elsewhere is found within about this plus one poll).
   * @defaultValue 0: every poll scans
   */
  readonly stillMs?: number;
  /** `LeaderWindow.poll` scans the whole window at least this often. @defaultValue 0: every poll scans */
  readonly scanEveryMs?: number;
  /**
   * While the Version is still (see {@link stillMs}), `LeaderWindow.poll` scans the whole window at
   * most this often, and reads only the nonce followed in between (a poller that polls faster
   * while the Version is still, to see a new leader sooner, costs one header read more per scan).
   * @defaultValue 0: every poll of a still Version scans
   */
  readonly stillScanMs?: number;
  /** Called once for every value that does not parse as a broadcast. */
  readonly onGarbage?: (nonce: number, raw: string, reason: string) => void;
  /**
   * Where the leader writes the step to each list (`RosterKeys.listStep`). When set, a poll that
   * finds a new list builds it from a list it holds and the steps since (see `ListStep`), and
   * reads the whole broadcast only when it cannot.
   */
  readonly stepKey?: (to: ListId) => string;
  /**
   * The lists this window builds new ones from and need not read again; several windows (the nodes
   * of one process) may share one. @defaultValue a cache of its own
   */
  readonly lists?: ListCache;
  /** Called for each new list a poll took in: from the cache, built from steps, or read whole. */
  readonly onList?: (how: 'cached' | 'step' | 'whole') => void;
}

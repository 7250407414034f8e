import {
  RosterError,
  silentLogger,
  type ValueTooLargeError,
  type KV,
  type KVOperationOptions,
  type Logger,
  type Namespace,
} from '@roster/kv-adapter';
import { checkId } from '@roster/follower';
import type { CorruptEntryReport } from './corruptEntry.js';
import { decodeEntry, encodeEntry, encodeEntryTemplate, STAMP_TOKEN, type HeartbeatEntry } from './entryCodec.js';
import { requireCapabilities } from './errors.js';
import { CorruptionReporter } from './internal/CorruptionReporter.js';
import { checkEndpoint, heartbeatKey } from './names.js';
import { checkTimeout, DEFAULT_TIMEOUT_MS } from './timing.js';

/** The current primary of a role type, as {@link HeartbeatTable.getPrimary} returns it. */
export type Primary = HeartbeatEntry;

/** Options of {@link HeartbeatTable}. */
export interface HeartbeatTableOptions {
  /** The store; it must declare the `compareAndSet` and `time` capabilities. */
  readonly store: KV;
  /** The key prefix of the table; each role type has the key `primary/<utype>` in it. */
  readonly namespace: Namespace;
  /**
   * The heartbeat timeout T, in ms of store time: an entry older than this counts as empty.
   * @defaultValue 5000
   */
  readonly timeoutMs?: number;
  /** Where corrupt entries and takeovers are logged. @defaultValue silentLogger */
  readonly logger?: Logger;
  /** Called with every corrupt entry read (after it was logged). Exceptions are logged and dropped. */
  readonly onCorruptEntry?: (report: CorruptEntryReport) => void;
}

/** Options of {@link HeartbeatTable.updateHeartbeat}. */
export interface UpdateHeartbeatOptions extends KVOperationOptions {
  /** Where this instance listens, stored in the entry for name resolution. */
  readonly endpoint?: string;
  /**
   * Write only when the entry already belongs to `id`. A primary renews this way, so that once
   * it has lost the entry it never takes it back under the same id.
   * @defaultValue false
   */
  readonly renewOnly?: boolean;
}

/** What was at the key before a successful {@link HeartbeatTable.updateHeartbeat}. */
export type PreviousEntry = 'empty' | 'corrupt' | 'own' | 'expired';

/** The outcome of {@link HeartbeatTable.updateHeartbeat}. */
export type HeartbeatOutcome =
  /** The heartbeat was written; `entry.timestamp` is the store time of the write. */
  | { readonly written: true; readonly entry: HeartbeatEntry; readonly previous: PreviousEntry; readonly storeTime: number }
  /** Another instance holds a live entry (store time − its timestamp ≤ T). */
  | { readonly written: false; readonly reason: 'held'; readonly holder: HeartbeatEntry; readonly storeTime: number }
  /** `renewOnly` was set and the entry is not this instance's (empty, expired or corrupt). */
  | { readonly written: false; readonly reason: 'not-owner'; readonly storeTime: number }
  /** The entry changed between the read and the compare-and-set: the heartbeat is discarded. */
  | { readonly written: false; readonly reason: 'conflict'; readonly storeTime: number }
  /** The store refused to return the entry (larger than its read limit); it was reported. */
  | { readonly written: false; readonly reason: 'unreadable'; readonly storeTime: number };

/** What {@link HeartbeatTable.inspect} found at a role type's key. */
export type EntryState =
  | { readonly state: 'empty'; readonly storeTime: number }
  | { readonly state: 'corrupt'; readonly reason: string; readonly storeTime: number }
  | { readonly state: 'live' | 'expired'; readonly entry: HeartbeatEntry; readonly ageMs: number; readonly storeTime: number };

interface Read {
  readonly storeTime: number;
  readonly key: string;
  /** The exact bytes read; `undefined` when the store refused to return them. */
  readonly raw: string | null | undefined;
  readonly state: EntryState;
}

/**
 * The heartbeat table: one entry `{id, utype, timestamp, endpoint?}` per role type,
 * judged by the store's own clock.
 *
 * - {@link updateHeartbeat} reads the store's time and the entry, decides (free, own, or expired:
 *   store time − old timestamp > T) and writes the new entry with compare-and-set on exactly the
 *   bytes it read, the store stamping its own time as the timestamp in the same atomic step. A
 *   heartbeat that loses the race is discarded, not retried.
 * - {@link getPrimary} returns the entry when store time − timestamp ≤ T, else nothing.
 *
 * Deciding on a time read before the compare-and-set is conservative: the store's clock only
 * grows, so at the write the entry (unchanged, or the write fails) is at least as old as when it
 * was judged expired. Local clocks are never involved: only store timestamps are compared with
 * store time.
 *
 * A corrupt entry (not JSON, wrong types, over 4096 characters, another type's entry) is treated
 * as empty and reported; taking it over still goes through compare-and-set on the corrupt bytes.
 *
 * @example
 * ```ts
 * const table = new HeartbeatTable({ store: new MemoryKV(), namespace: new Namespace('shop', 'prod') });
 * await table.updateHeartbeat('a1b2', 'billing', { endpoint: '10.0.0.7:8080' }); // { written: true, … }
 * await table.getPrimary('billing'); // { id: 'a1b2', utype: 'billing', timestamp: …, endpoint: '10.0.0.7:8080' }
 * ```
 */
export class HeartbeatTable {
  /** The store. */
  readonly store: KV;
  /** The key prefix. */
  readonly namespace: Namespace;
  /** T, in ms of store time. */
  readonly timeoutMs: number;
  readonly #logger: Logger;
  readonly #corruption: CorruptionReporter;

  /**
   * @throws {@link ConfigError} when `timeoutMs` is not a positive number.
   * @throws {@link UnsupportedOperationError} when the store lacks `compareAndSet` or `time`.
   */
  constructor(options: HeartbeatTableOptions) {
    requireCapabilities(options.store);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    checkTimeout(timeoutMs);
    this.store = options.store;
    this.namespace = options.namespace;
    this.timeoutMs = timeoutMs;
    this.#logger = options.logger ?? silentLogger;
    this.#corruption = new CorruptionReporter(this.#logger, options.onCorruptEntry);
  }

  /** How many corrupt entries this table has read so far (every read counts). */
  get corruptReads(): number {
    return this.#corruption.count;
  }

  /** The store key of `utype`'s entry. */
  key(utype: string): string {
    return heartbeatKey(this.namespace, utype);
  }

  /**
   * `UpdateHeartbeat(id, utype)`: writes `{id, utype, timestamp: store time}`
   * when the entry is empty, corrupt, this instance's own, or expired (store time − its
   * timestamp > T); otherwise writes nothing.
   *
   * 1. Read the store's time and the entry (in parallel: both precede the write).
   * 2. Decide from them; another instance's live entry ends here with `held`.
   * 3. Compare-and-set on exactly the bytes read, the store stamping its time in the same step.
   * 4. Lost the race (`swapped: false`): the heartbeat is discarded (`conflict`), not retried.
   *
   * Rejects with the store's typed errors (`StoreUnavailableError`, …) or the signal's reason.
   * @throws {@link ConfigError} for an invalid `id`, `utype` or `endpoint`.
   */
  async updateHeartbeat(id: string, utype: string, options: UpdateHeartbeatOptions = {}): Promise<HeartbeatOutcome> {
    checkId(id);
    if (options.endpoint !== undefined) checkEndpoint(options.endpoint);
    const read = await this.#read(utype, options);
    const { state, storeTime, raw, key } = read;
    if (raw === undefined) return { written: false, reason: 'unreadable', storeTime };

    let previous: PreviousEntry;
    if (state.state === 'empty' || state.state === 'corrupt') previous = state.state;
    else if (state.entry.id === id) previous = 'own';
    else if (state.state === 'expired') previous = 'expired';
    else return { written: false, reason: 'held', holder: state.entry, storeTime };
    if (options.renewOnly && previous !== 'own') return { written: false, reason: 'not-owner', storeTime };

    const template = encodeEntryTemplate({ id, utype, ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }) });
    const result = await this.store.compareAndSet(key, raw, template, { stampToken: STAMP_TOKEN, signal: options.signal });
    const writeTime = result.time ?? storeTime;
    if (!result.swapped) {
      this.#logger.debug({ utype, id }, 'primary: heartbeat lost the compare-and-set race and is discarded');
      return { written: false, reason: 'conflict', storeTime: writeTime };
    }
    const written = decodeEntry(result.current, utype);
    const entry: HeartbeatEntry =
      written.kind === 'entry' ? written.entry : { id, utype, timestamp: writeTime, ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }) };
    if (previous === 'corrupt') this.#corruption.cleared(key);
    if (previous === 'expired' || previous === 'corrupt') {
      const from = state.state === 'expired' ? state.entry.id : undefined;
      this.#logger.info({ utype, id, from, previous }, 'primary: took over the heartbeat entry');
    }
    return { written: true, entry, previous, storeTime: writeTime };
  }

  /**
   * `GetPrimary(utype)`: the entry when store time − its timestamp ≤ T, else
   * `undefined` (empty, expired, or corrupt and reported).
   */
  async getPrimary(utype: string, options: KVOperationOptions = {}): Promise<Primary | undefined> {
    const { state } = await this.#read(utype, options);
    return state.state === 'live' ? state.entry : undefined;
  }

  /**
   * What is at `utype`'s key, with the store time of the read: empty, corrupt (with the reason),
   * or an entry that is live or expired (with its age in store time). For tools and the CLI.
   */
  async inspect(utype: string, options: KVOperationOptions = {}): Promise<EntryState> {
    return (await this.#read(utype, options)).state;
  }

  /**
   * Gives `utype` up on behalf of `id`, so a successor need not wait T: when the entry is
   * `id`'s, replaces it (compare-and-set on the bytes read) by the same id with timestamp 0,
   * which every reader judges expired. Call it only after `id` stopped acting as primary.
   * Resolves to true when the entry was released.
   */
  async release(id: string, utype: string, options: KVOperationOptions = {}): Promise<boolean> {
    checkId(id);
    const { state, raw, key } = await this.#read(utype, options);
    if (raw === undefined || raw === null || (state.state !== 'live' && state.state !== 'expired') || state.entry.id !== id) {
      return false;
    }
    const result = await this.store.compareAndSet(key, raw, encodeEntry({ id, utype, timestamp: 0 }), { signal: options.signal });
    if (result.swapped) this.#logger.info({ utype, id }, 'primary: released the heartbeat entry');
    return result.swapped;
  }

  async #read(utype: string, options: KVOperationOptions): Promise<Read> {
    const key = this.key(utype);
    const signal = options.signal;
    const [storeTime, got] = await Promise.all([this.store.time({ signal }), this.#get(key, signal)]);
    if (got.refused) {
      const reason = `the store refused to return it: ${got.refused.message}`;
      this.#corruption.report(utype, key, null, reason);
      return { storeTime, key, raw: undefined, state: { state: 'corrupt', reason, storeTime } };
    }
    const raw = got.raw;
    const decoded = decodeEntry(raw, utype);
    switch (decoded.kind) {
      case 'empty':
        return { storeTime, key, raw, state: { state: 'empty', storeTime } };
      case 'corrupt':
        this.#corruption.report(utype, key, raw, decoded.reason);
        return { storeTime, key, raw, state: { state: 'corrupt', reason: decoded.reason, storeTime } };
      case 'entry': {
        const ageMs = storeTime - decoded.entry.timestamp;
        return { storeTime, key, raw, state: { state: ageMs <= this.timeoutMs ? 'live' : 'expired', entry: decoded.entry, ageMs, storeTime } };
      }
    }
  }

  async #get(key: string, signal: AbortSignal | undefined): Promise<{ raw: string | null; refused?: undefined } | { raw?: undefined; refused: ValueTooLargeError }> {
    try {
      return { raw: await this.store.get(key, { signal }) };
    } catch (error) {
      if (RosterError.is(error, 'KV_VALUE_TOO_LARGE')) return { refused: error as ValueTooLargeError };
      throw error;
    }
  }
}

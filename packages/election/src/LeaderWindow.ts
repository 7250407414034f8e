import { isKeyFailure, readWindow, withDeadline, type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import { bestBroadcast, compareLeadership, formatBroadcast, formatHeader, MAX_HEADER_BYTES, parseBroadcast, parseHeader, sameLeadership, type Broadcast, type BroadcastHeader } from '@roster/follower';
import { listEpoch, supersedes } from './versions.js';
import { applyListStep, ListCache, listIdOf, parseListStep, sameListId, withMembers, type ListId, type ListStep } from './listStep.js';

/** One nonce of the leader key as read. */
export type LeaderSlot =
  | { readonly nonce: number; readonly state: 'empty' }
  | { readonly nonce: number; readonly state: 'broadcast'; readonly raw: string; readonly broadcast: Broadcast }
  | { readonly nonce: number; readonly state: 'garbage'; readonly raw: string; readonly reason: string }
  /**
   * Read by its header only ({@link LeaderWindow.check}): a leadership no better than the reader's
   * own, or an older version of it, whose members the reader does not need.
   */
  | { readonly nonce: number; readonly state: 'behind'; readonly header: BroadcastHeader }
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
  /** True when every nonce of the window was looked at (a poll may read only their headers); false for a poll of one nonce. */
  readonly scanned: boolean;
  /**
   * The header of a value that supersedes what the reader follows (a poll: a later Version of its
   * leadership, or a better leadership) or compares with (`own` of a {@link LeaderWindow.check}: a
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

/** Options of {@link LeaderWindow}. */
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
   * {@link LeaderWindow.poll} scans the whole window when the Version it follows has been still for
   * longer than this (so a claim made elsewhere is found within about this plus one poll).
   * @defaultValue 0: every poll scans
   */
  readonly stillMs?: number;
  /** {@link LeaderWindow.poll} scans the whole window at least this often. @defaultValue 0: every poll scans */
  readonly scanEveryMs?: number;
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

/** The `error` of a nonce whose list another reader sharing the cache was fetching, and failed to. */
export const SHARED_READ_FAILED = 'the read of this list by another reader sharing the list cache failed';

/** Most steps a poll reads back from a new list to one it holds. */
const MAX_STEPS = 3;

/** What a poll knows of the broadcast it follows. */
interface Known {
  readonly nonce: number;
  readonly broadcast: Broadcast;
  /** Bytes of its header `Era Nonce Version Id `. */
  readonly headerBytes: number;
  /** Local time at which its Version last moved. */
  readonly movedAt: number;
}

/** A slot holding `broadcast`, whose raw text is built only if someone asks for it. */
function lazySlot(nonce: number, broadcast: Broadcast): LeaderSlot {
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
const HEADER_SLACK = 8;

function broadcastsOf(slots: readonly LeaderSlot[]): Broadcast[] {
  return slots.flatMap((s) => (s.state === 'broadcast' ? [s.broadcast] : []));
}

/** Bytes of a slot's header `Era Nonce Version Id `, from its broadcast (its raw value may be built lazily). */
function headerBytesOf(slot: Extract<LeaderSlot, { state: 'broadcast' }>): number {
  return Buffer.byteLength(formatHeader(slot.broadcast));
}

/** A leader's own last publication, as {@link LeaderWindow.check} compares the window with it. */
export interface OwnPublication {
  /** The nonce it was written at. */
  readonly nonce: number;
  readonly broadcast: Broadcast;
  /** Its exact text. */
  readonly raw: string;
}

/**
 * Reads the leader key (seed 003 §1–2), in three ways:
 *
 * - {@link read} reads every nonce of the window in parallel: a writer that moved to another nonce
 *   is found there, unavailable nonces are skipped, and values that do not parse are reported and
 *   ignored, never adopted. Candidates use it.
 * - {@link check} is a leader's read of every nonce: the headers only, and the whole value only
 *   where the header is not the leader's own last publication or a leadership behind it.
 * - {@link poll} is a follower's cheap read: the first bytes of the one nonce where the best
 *   broadcast was last found (`getRange`, the header `Era Nonce Version Id` and a few bytes); when
 *   the leadership or the list epoch of its Version changed (see `LIST_STRIDE`), the new list from
 *   its `ListCache`, from the leader's list steps, or, failing both, the whole value. It scans
 *   every nonce's header when it knows no broadcast, when that nonce is unavailable, empty or
 *   garbage, when the Version has been still for `stillMs`, and every `scanEveryMs`.
 */
export class LeaderWindow {
  readonly #o: LeaderWindowOptions;
  #known: Known | undefined;
  #scannedAt = Number.NEGATIVE_INFINITY;
  /** The last lists seen: the bases steps start from. */
  readonly #lists: ListCache;
  /** Steps are not read before this time (a step read failed: the shortcut is off for a while). */
  #stepsOffUntil = Number.NEGATIVE_INFINITY;
  /** The nonces last read as garbage: their warning is logged once. */
  readonly #garbageAt = new Set<number>();
  /** The nonces this read found turned to garbage, with why. */
  #newGarbage: { key: string; reason: string }[] = [];

  constructor(options: LeaderWindowOptions) {
    this.#o = options;
    this.#lists = options.lists ?? new ListCache(4);
  }

  /** The compound key read. */
  get key(): CompoundKey {
    return this.#o.key;
  }

  /** Reads every nonce of the window in parallel. Never rejects. */
  async read(signal?: AbortSignal): Promise<LeaderWindowRead> {
    const { kv, key, clock, opTimeoutMs } = this.#o;
    const startedAt = clock.now();
    // Each nonce has its own deadline: a hung shard makes its nonce unavailable, not the window.
    const raw = await readWindow(kv, key, { ...(signal && { signal }), deadline: { clock, ms: opTimeoutMs } });
    const slots = raw.map((s): LeaderSlot => {
      if (!s.ok) return { nonce: s.nonce, state: 'unavailable', error: s.error };
      if (s.value === null) return { nonce: s.nonce, state: 'empty' };
      return this.#parse(s.nonce, s.value);
    });
    this.#cleared(slots);
    const broadcasts = slots.flatMap((s) => (s.state === 'broadcast' ? [s.broadcast] : []));
    const best = bestBroadcast(broadcasts);
    const at = clock.now();
    this.#scannedAt = startedAt;
    const found = slots.find((s): s is Extract<LeaderSlot, { state: 'broadcast' }> => s.state === 'broadcast' && s.broadcast === best);
    this.#know(found && { nonce: found.nonce, broadcast: found.broadcast, headerBytes: headerBytesOf(found) }, at);
    return { slots, broadcasts, best, reachable: slots.some((s) => s.state !== 'unavailable'), startedAt, at, scanned: true };
  }

  /**
   * A leader's read of every nonce of the window, in parallel, at the cost of headers: one
   * `getRange` each of twice the header's bytes and a few more (so that a claim, `Era Nonce 0 Id Id`,
   * comes whole). A nonce whose header is `own` publication (same
   * leadership and Version, at the nonce it was written) is that publication, known without its
   * members being sent again; a nonce holding a worse leadership, or an older Version of `own`'s,
   * is {@link LeaderSlot | `behind`}. Every other value (a better or equal leadership, a later
   * Version of `own`'s, anything at `own`'s nonce that is not `own`) is read whole and parsed, as
   * {@link read} does. Never rejects.
   */
  async check(own: OwnPublication, signal?: AbortSignal): Promise<LeaderWindowRead> {
    const { kv, key, clock, opTimeoutMs } = this.#o;
    const startedAt = clock.now();
    const mine = own.broadcast;
    const ownHeaderBytes = Buffer.byteLength(formatHeader(mine));
    let moving: BroadcastHeader | undefined;
    const look = async (nonce: number, bytes: number): Promise<LeaderSlot> => {
      let head: string;
      try {
        head = await withDeadline(clock, opTimeoutMs, 'leader header read', kv.getRange(key.at(nonce), 0, bytes - 1, { signal }));
      } catch (error) {
        return { nonce, state: 'unavailable', error };
      }
      if (head === '') return { nonce, state: 'empty' };
      if (Buffer.byteLength(head) < bytes) return this.#parse(nonce, head);
      const parsed = parseHeader(head);
      if (parsed === undefined) return bytes < MAX_HEADER_BYTES ? look(nonce, MAX_HEADER_BYTES) : this.#garbage(nonce, head, 'no broadcast header');
      const h = parsed.header;
      const order = compareLeadership({ ...h, members: [] }, mine);
      if (nonce === own.nonce && order === 0 && h.version === mine.version) return { nonce, state: 'broadcast', raw: own.raw, broadcast: mine };
      if (nonce !== own.nonce && (order > 0 || (order === 0 && h.version <= mine.version))) return { nonce, state: 'behind', header: h };
      try {
        const value = await withDeadline(clock, opTimeoutMs, 'leader key read', kv.get(key.at(nonce), { signal }));
        return value === null ? { nonce, state: 'empty' } : this.#parse(nonce, value);
      } catch (error) {
        // The header alone shows `own`'s leadership publishing: progress, whatever its list.
        if (order === 0 && h.version > mine.version && (moving === undefined || h.version > moving.version)) moving = h;
        return { nonce, state: 'unavailable', error };
      }
    };
    // Enough bytes for a claim (`Era Nonce 0 Id Id`) to come whole, as candidates write them.
    const slots = await Promise.all(key.keys().map((_, nonce) => look(nonce, 2 * ownHeaderBytes + HEADER_SLACK)));
    this.#cleared(slots);
    const broadcasts = broadcastsOf(slots);
    const best = bestBroadcast(broadcasts);
    return { slots, broadcasts, best, reachable: slots.some((s) => s.state !== 'unavailable'), startedAt, at: clock.now(), scanned: true, ...(moving && { moving }) };
  }

  /**
   * A follower's read: in steady state one `getRange` of the header at the nonce where the best
   * broadcast was last found; a `get` of the whole value when its leadership or list epoch moved.
   * When it knows no broadcast, when that nonce is unavailable, empty or garbage, when the Version
   * has been still for `stillMs`, and every `scanEveryMs`, it scans the headers of every nonce
   * (one `getRange` each) and reads whole only the best value, when its list is not the one it
   * knows. Nonces whose value it did not read whole are reported unavailable ({@link NOT_READ}).
   * Never rejects.
   */
  async poll(signal?: AbortSignal): Promise<LeaderWindowRead> {
    const { key, clock } = this.#o;
    const startedAt = clock.now();
    const known = this.#known;
    const stillMs = this.#o.stillMs ?? 0;
    const scanEveryMs = this.#o.scanEveryMs ?? 0;
    const scan = known === undefined || startedAt - this.#scannedAt >= scanEveryMs || startedAt - known.movedAt > stillMs;
    const all = key.keys().map((_, n) => n);
    let scanned = scan;
    let read = await this.#heads(scan ? all : [known.nonce], signal);
    let moving = read.moving;
    if (!scan && read.slots[known.nonce]!.state !== 'broadcast') {
      scanned = true;
      read = await this.#heads(all, signal);
      moving ??= read.moving;
    }
    const { slots, reachable } = read;
    this.#cleared(slots);
    const broadcasts = broadcastsOf(slots);
    const best = bestBroadcast(broadcasts);
    const at = clock.now();
    const found = slots.find((s): s is Extract<LeaderSlot, { state: 'broadcast' }> => s.state === 'broadcast' && s.broadcast === best);
    if (scanned) this.#scannedAt = startedAt;
    if (found) this.#know({ nonce: found.nonce, broadcast: found.broadcast, headerBytes: headerBytesOf(found) }, at);
    else if (scanned) this.#know(undefined, at);
    return { slots, broadcasts, best, reachable, startedAt, at, scanned, ...(moving && { moving }) };
  }

  /**
   * The slots of a poll: the header of each nonce in `nonces` (one `getRange` each, together),
   * then the whole value of the best one whose list is not known (one `get`). Slots whose value
   * was not read whole, and nonces not in `nonces`, are {@link NOT_READ}.
   */
  async #heads(nonces: readonly number[], signal: AbortSignal | undefined): Promise<{ slots: LeaderSlot[]; reachable: boolean; moving?: BroadcastHeader }> {
    const { kv, key, clock, opTimeoutMs } = this.#o;
    const known = this.#known;
    const slots: LeaderSlot[] = key.keys().map((_, nonce) => ({ nonce, state: 'unavailable', error: NOT_READ }));
    const pending: { nonce: number; header: BroadcastHeader }[] = [];
    let reachable = false;
    const want = known === undefined ? MAX_HEADER_BYTES : known.headerBytes + HEADER_SLACK;
    const look = async (nonce: number, bytes: number): Promise<void> => {
      let head: string;
      try {
        head = await withDeadline(clock, opTimeoutMs, 'leader header read', kv.getRange(key.at(nonce), 0, bytes - 1, { signal }));
      } catch (error) {
        slots[nonce] = { nonce, state: 'unavailable', error };
        return;
      }
      reachable = true;
      if (head === '') slots[nonce] = { nonce, state: 'empty' };
      else if (Buffer.byteLength(head) < bytes) slots[nonce] = this.#parse(nonce, head);
      else {
        const parsed = parseHeader(head);
        const same = parsed && known && this.#sameList(known, parsed.header, nonce);
        if (same) slots[nonce] = same;
        else if (parsed) pending.push({ nonce, header: parsed.header });
        // A header longer than the one we know (another leader's id): look again, wider.
        else if (bytes < MAX_HEADER_BYTES) await look(nonce, MAX_HEADER_BYTES);
        else slots[nonce] = this.#garbage(nonce, head, 'no broadcast header');
      }
    };
    await Promise.all(nonces.map((nonce) => look(nonce, want)));
    // Of the values known only by their header, read the best one whole; when it turns out not to
    // be a broadcast (garbage whose start looks like a header), the next best, and so on.
    const order = (h: BroadcastHeader): Broadcast => ({ ...h, members: [] });
    pending.sort((x, y) => compareLeadership(order(x.header), order(y.header)) || y.header.version - x.header.version);
    let moving: BroadcastHeader | undefined;
    for (const p of pending) {
      const best = bestBroadcast(broadcastsOf(slots));
      if (best && !supersedes(order(p.header), best)) break;
      const id = listIdOf(p.header);
      const cached = p.header.version > 0 ? this.#lists.get(id) : undefined;
      if (cached !== undefined) {
        this.#o.onList?.('cached');
        slots[p.nonce] = lazySlot(p.nonce, withMembers(p.header, cached));
        break;
      }
      const failed = (error: unknown): void => {
        slots[p.nonce] = { nonce: p.nonce, state: 'unavailable', error };
        // The header alone shows the leader followed publishing a new list, or a better leadership
        // (a claim, a new leader's first list) active: progress all the same. To a reader that
        // knows no broadcast yet, the best header is the leadership to watch.
        const news = known ? supersedes(order(p.header), known.broadcast) : p === pending[0];
        if (moving === undefined && news) moving = p.header;
      };
      // The list of this header is fetched once per cache: readers sharing the cache wait for the
      // fetch in flight rather than each reading the same list.
      const fetchList = async (): Promise<Broadcast | undefined> => {
        const built = await this.#fromSteps(p.header, signal);
        if (built !== undefined) {
          this.#o.onList?.('step');
          slots[p.nonce] = lazySlot(p.nonce, built);
          return built;
        }
        try {
          const value = await withDeadline(clock, opTimeoutMs, 'leader key read', kv.get(key.at(p.nonce), { signal }));
          slots[p.nonce] = value === null ? { nonce: p.nonce, state: 'empty' } : this.#parse(p.nonce, value);
          if (value !== null) this.#o.onList?.('whole');
        } catch (error) {
          failed(error);
        }
        const slot = slots[p.nonce]!;
        return slot.state === 'broadcast' ? slot.broadcast : undefined;
      };
      const fetched = p.header.version > 0 ? await this.#lists.load(id, key.at(p.nonce), fetchList) : { broadcast: await fetchList(), ran: true };
      if (!fetched.ran) {
        // Another reader sharing the cache read this nonce meanwhile: what it found stands for this
        // read when it is the leadership of the header, at its Version or a later one.
        const b = fetched.broadcast;
        if (b !== undefined && sameLeadership(b, order(p.header)) && b.version >= p.header.version) {
          this.#o.onList?.('cached');
          slots[p.nonce] = lazySlot(p.nonce, b);
        } else failed(new Error(SHARED_READ_FAILED));
      }
      if (slots[p.nonce]!.state === 'broadcast') break;
    }
    return { slots, reachable, ...(moving && { moving }) };
  }

  /**
   * The known broadcast at the Version of `h`, when `h` is a later Version of it in the same list
   * epoch, or the same claim (Version 0: a candidate writes its claim once, and never changes it).
   */
  #sameList(known: Known, h: BroadcastHeader, nonce: number): LeaderSlot | undefined {
    const b = known.broadcast;
    if (!sameLeadership(b, { ...h, members: [] }) || h.version < b.version) return undefined;
    if (h.version === 0) return b.version === 0 && known.nonce === nonce ? lazySlot(nonce, b) : undefined;
    if (listEpoch(h.version) !== listEpoch(b.version)) return undefined;
    // The members did not change: the raw value is rebuilt only if someone asks for it.
    return lazySlot(nonce, h.version === b.version ? b : { ...b, version: h.version });
  }

  /**
   * The broadcast at header `h` built from a list this window holds and the steps the leader wrote
   * since (one `get` per step, at most {@link MAX_STEPS}, within half an operation timeout in
   * all); `undefined` when it cannot be (no step, a step that does not fit, a step read that
   * failed: then steps are not read again for `scanEveryMs`, so a dead shard holding them costs
   * one timeout, not one per poll). Never rejects.
   */
  async #fromSteps(h: BroadcastHeader, signal: AbortSignal | undefined): Promise<Broadcast | undefined> {
    const { kv, clock, opTimeoutMs, stepKey } = this.#o;
    const start = clock.now();
    if (stepKey === undefined || h.version === 0 || start < this.#stepsOffUntil) return undefined;
    const chain: ListStep[] = [];
    let target = listIdOf(h);
    for (let hop = 0; hop < MAX_STEPS; hop++) {
      const left = start + this.#o.listStepBudgetMs - clock.now();
      let value: string | null;
      try {
        if (left <= 0) throw new Error('list steps took too long');
        value = await withDeadline(clock, left, 'list step read', kv.get(stepKey(target), { signal }));
      } catch {
        this.#stepsOffUntil = clock.now() + (this.#o.scanEveryMs ?? 0);
        return undefined;
      }
      const step = value === null ? undefined : parseListStep(value);
      if (step === undefined || !sameListId(step.to, target)) return undefined;
      chain.push(step);
      let members = this.#lists.get(step.from);
      if (members === undefined) {
        target = step.from;
        continue;
      }
      for (let i = chain.length - 1; i >= 0 && members !== undefined; i--) members = applyListStep(members, chain[i]!);
      return members === undefined ? undefined : withMembers(h, members);
    }
    return undefined;
  }

  #know(next: Omit<Known, 'movedAt'> | undefined, at: number): void {
    const prev = this.#known;
    if (next === undefined) {
      this.#known = undefined;
      return;
    }
    const b = next.broadcast;
    if (b.version > 0 && b.members.length > 0) this.#lists.put(listIdOf(b), b.members);
    const moved = prev === undefined || !sameLeadership(prev.broadcast, next.broadcast) || prev.broadcast.version !== next.broadcast.version;
    this.#known = { ...next, movedAt: moved ? at : prev.movedAt };
  }

  #parse(nonce: number, value: string): LeaderSlot {
    const parsed = parseBroadcast(value);
    if (parsed.ok) return { nonce, state: 'broadcast', raw: value, broadcast: parsed.broadcast };
    return this.#garbage(nonce, value, parsed.reason);
  }

  #garbage(nonce: number, raw: string, reason: string): LeaderSlot {
    this.#o.onGarbage?.(nonce, raw, reason);
    if (!this.#garbageAt.has(nonce)) this.#newGarbage.push({ key: this.#o.key.at(nonce), reason });
    this.#garbageAt.add(nonce);
    return { nonce, state: 'garbage', raw, reason };
  }

  /**
   * At the end of a read: logs the nonces that turned to garbage, in one line (once per change of
   * state, not at every read), and forgets those that `slots` read as something else.
   */
  #cleared(slots: readonly LeaderSlot[]): void {
    if (this.#newGarbage.length > 0) this.#o.logger.warn({ keys: this.#newGarbage }, 'ignoring leader-key values that do not parse');
    this.#newGarbage = [];
    if (this.#garbageAt.size === 0) return;
    for (const slot of slots) if (slot.state !== 'garbage' && slot.state !== 'unavailable') this.#garbageAt.delete(slot.nonce);
  }
}

import { readWindow, type KVOperationOptions } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';
import { bestBroadcast, compareLeadership, formatHeader, MAX_HEADER_BYTES, parseBroadcast, parseHeader, sameLeadership, type Broadcast, type BroadcastHeader } from './broadcast.js';
import { broadcastsOf, headerBytesOf, HEADER_SLACK, lazySlot, NOT_READ, SHARED_READ_FAILED, type LeaderSlot, type LeaderWindowOptions, type LeaderWindowRead, type OwnPublication } from './LeaderRead.js';

export type { LeaderWindowOptions } from './LeaderRead.js';
import { ListCache, listIdOf, withMembers } from './listStep.js';
import { StepReader } from './ListSteps.js';
import { listEpoch, supersedes } from './versions.js';

/** What a poll knows of the broadcast it follows. */
interface Known {
  readonly nonce: number;
  readonly broadcast: Broadcast;
  /** Bytes of its header `Era Nonce Version Id `. */
  readonly headerBytes: number;
  /** Local time at which its Version last moved. */
  readonly movedAt: number;
}

/**
 * Reads the leader key, in three ways:
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
 *   garbage, when the Version has been still for `stillMs` (then at most every `stillScanMs`), and
 *   every `scanEveryMs`.
 */
export class LeaderWindow {
  readonly #o: LeaderWindowOptions;
  #known: Known | undefined;
  #scannedAt = Number.NEGATIVE_INFINITY;
  /** The last lists seen: the bases steps start from. */
  readonly #lists: ListCache;
  /** Builds new lists from the leader's steps, when it writes them. */
  readonly #steps: StepReader | undefined;
  /** The nonces last read as garbage: their warning is logged once. */
  readonly #garbageAt = new Set<number>();
  /** The nonces this read found turned to garbage, with why. */
  #newGarbage: { key: string; reason: string }[] = [];

  constructor(options: LeaderWindowOptions) {
    this.#o = options;
    this.#lists = options.lists ?? new ListCache(4);
    const { kv, clock, stepKey, listStepBudgetMs, scanEveryMs } = options;
    this.#steps = stepKey && new StepReader({ kv, clock, stepKey, lists: this.#lists, budgetMs: listStepBudgetMs, offForMs: scanEveryMs ?? 0 });
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
    // The leader's read before it renews its lease: served before its PONG round when they wait
    // for a connection of the same pool.
    const sent: KVOperationOptions = { ...(signal && { signal }), urgent: true };
    const look = async (nonce: number): Promise<LeaderSlot> => {
      // Enough bytes for a claim (`Era Nonce 0 Id Id`) to come whole, as candidates write them.
      const probed = await this.#probe(nonce, 2 * ownHeaderBytes + HEADER_SLACK, sent);
      if (!('header' in probed)) return probed;
      const h = probed.header;
      const order = compareLeadership({ ...h, members: [] }, mine);
      if (nonce === own.nonce && order === 0 && h.version === mine.version) return { nonce, state: 'broadcast', raw: own.raw, broadcast: mine };
      if (nonce !== own.nonce && (order > 0 || (order === 0 && h.version <= mine.version))) return { nonce, state: 'behind', header: h };
      try {
        const value = await withDeadline(clock, opTimeoutMs, 'leader key read', kv.get(key.at(nonce), sent));
        return value === null ? { nonce, state: 'empty' } : this.#parse(nonce, value);
      } catch (error) {
        // The header alone shows `own`'s leadership publishing: progress, whatever its list.
        if (order === 0 && h.version > mine.version && (moving === undefined || h.version > moving.version)) moving = h;
        return { nonce, state: 'unavailable', error };
      }
    };
    const slots = await Promise.all(key.keys().map((_, nonce) => look(nonce)));
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
   * A `peek` scans only when it must (no broadcast known, or its nonce not holding one): a
   * follower due to stand looks where its leader was, and stands at once if it is still there
   * unchanged (its candidacy reads every nonce next). `stillScanMs` overrides the option of that
   * name for this poll (a follower backing off on a slow store scans less often). Never rejects.
   */
  async poll(signal?: AbortSignal, peek = false, stillScanMs = this.#o.stillScanMs ?? 0): Promise<LeaderWindowRead> {
    const { key, clock } = this.#o;
    const startedAt = clock.now();
    const known = this.#known;
    const stillMs = this.#o.stillMs ?? 0;
    const scanEveryMs = this.#o.scanEveryMs ?? 0;
    const sinceScan = startedAt - this.#scannedAt;
    const scan = known === undefined || (!peek && (sinceScan >= scanEveryMs || (startedAt - known.movedAt > stillMs && sinceScan >= stillScanMs)));
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
    const look = async (nonce: number): Promise<void> => {
      const probed = await this.#probe(nonce, want, { ...(signal && { signal }) }, () => (reachable = true));
      if (!('header' in probed)) {
        slots[nonce] = probed;
        return;
      }
      const same = known && this.#sameList(known, probed.header, nonce);
      if (same) slots[nonce] = same;
      else pending.push({ nonce, header: probed.header });
    };
    await Promise.all(nonces.map((nonce) => look(nonce)));
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
        const built = await this.#steps?.build(p.header, signal);
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
   * The first `bytes` of the value at `nonce` (one `getRange`): a slot when that tells what the
   * value is (unavailable, empty, a whole value shorter than `bytes`, garbage), else its header,
   * read with `options` (the caller's signal; `urgent` for the leader's own check).
   * A header longer than `bytes` (another leader's id) is looked at again, wider. `reached` is
   * called when the store answered.
   */
  async #probe(nonce: number, bytes: number, options: KVOperationOptions, reached?: () => void): Promise<LeaderSlot | { readonly header: BroadcastHeader }> {
    const { kv, key, clock, opTimeoutMs } = this.#o;
    let head: string;
    try {
      head = await withDeadline(clock, opTimeoutMs, 'leader header read', kv.getRange(key.at(nonce), 0, bytes - 1, options));
    } catch (error) {
      return { nonce, state: 'unavailable', error };
    }
    reached?.();
    if (head === '') return { nonce, state: 'empty' };
    if (Buffer.byteLength(head) < bytes) return this.#parse(nonce, head);
    const parsed = parseHeader(head);
    if (parsed !== undefined) return { header: parsed.header };
    return bytes < MAX_HEADER_BYTES ? this.#probe(nonce, MAX_HEADER_BYTES, options, reached) : this.#garbage(nonce, head, 'no broadcast header');
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

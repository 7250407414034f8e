import { formatBroadcast, formatMember, isGoodbye, parseBroadcast, sameLeadership, type Broadcast, type Member, type RosterKeys } from '@roster/follower';
import type { CompoundKey, Timer } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';
import type { ResolvedConfig } from './config.js';
import type { Lease } from './Lease.js';
import { diffLists, formatListStep, listIdOf, nextVersion, sameListId, sameMembers, type LeaderWindowRead, type OwnPublication } from '@roster/follower/internal';
import type { NodeStats } from './NodeStats.js';
import { expectedValue } from './expectedValue.js';

/** Options of {@link Publisher}. */
export interface PublisherOptions {
  readonly config: ResolvedConfig;
  readonly keys: RosterKeys;
  readonly stats: NodeStats;
  /** The leader key as this node writes it; a publication moves it when a nonce is unavailable. */
  readonly leaderKey: CompoundKey;
  /** The confirmed claim and its exact text in the store. */
  readonly claim: Broadcast;
  readonly raw: string;
  /** The broadcast the inherited members were taken from, if any: the base of the first list step. */
  readonly inheritedFrom?: Broadcast;
  /** The leader's lease: a publication while it is lapsed is a re-validation (counted apart). */
  readonly lease: Pick<Lease, 'lapsed'>;
  /** Whether leadership is ending: nothing is written after that. */
  readonly ending: () => boolean;
  /** Asks the node for a cycle now (a beat met another write). */
  readonly poke: () => void;
  /** Called with each beat that landed. */
  readonly onBeat?: (b: Broadcast) => void;
}

/** How one write of a publication ended. */
export type WriteOutcome =
  | { readonly outcome: 'published'; readonly broadcast: Broadcast }
  /** Another write replaced the value we read: read again at once. */
  | { readonly outcome: 'conflict' }
  /** The store did not take it (unreachable, timed out, every nonce unavailable). */
  | { readonly outcome: 'failed' }
  /** Leadership ended meanwhile: nothing was written after that. */
  | { readonly outcome: 'ended' };

/**
 * What a leader writes at the leader key: its publications (by compare-and-set against what its
 * read found), the list steps beside them, the beats between them, and its goodbye. It holds what
 * was last written, and whether the store is failing it (logged once per change of state).
 *
 * Halfway between two cycles the leader **beats**: it publishes the same list at the next Version
 * by compare-and-set against what it last wrote, without a read. A beat never renews the lease;
 * it only shows followers that the leader is alive, so that its last publication before a pause is
 * at most I/2 old (the stall tolerance is T − I/2, not T − I). A beat that meets another write
 * asks for a cycle at once.
 */
export class Publisher {
  readonly #o: PublisherOptions;
  #me: Broadcast;
  #raw: string;
  /** The last list surely published (or, before the first publication, inherited): the base of the next step. */
  #listBase: Broadcast | undefined;
  /**
   * The highest Version this leader has tried to write, landed or not. Above `#me`'s, a write whose
   * reply was lost may have landed at some nonce with its list: the next publication starts a
   * fresh list epoch above it, so that no two lists ever share an epoch.
   */
  #attempted: number;
  /** False after a compare-and-set found something else than our last publication: read the window whole. */
  #trustOwn = true;
  /** True while the last publication attempt failed: a lease that runs out then is the store's doing. */
  #failing = false;
  #beatTimer: Timer | undefined;
  /** The beat in flight, if any. */
  #beating: Promise<void> | undefined;
  /** True while the node's cycle (read, then publish) runs: no beat starts meanwhile. */
  #held = false;

  constructor(options: PublisherOptions) {
    this.#o = options;
    this.#me = options.claim;
    this.#raw = options.raw;
    this.#attempted = options.claim.version;
    this.#listBase = options.inheritedFrom;
  }

  /** The leadership as last written. */
  get broadcast(): Broadcast {
    return this.#me;
  }

  /** Whether the store failed the last attempt. */
  get failing(): boolean {
    return this.#failing;
  }

  /** The last publication at its nonce, unless a compare-and-set since found something else. */
  get own(): OwnPublication | undefined {
    return this.#trustOwn ? { nonce: this.#o.leaderKey.nonce, broadcast: this.#me, raw: this.#raw } : undefined;
  }

  /** A read that reached no nonce: nothing to publish on (logged once, when it starts). */
  unreadable(read: LeaderWindowRead): { readonly outcome: 'failed' } {
    const first = read.slots[0];
    if (!this.#failing) this.#o.config.logger.warn({ err: first?.state === 'unavailable' ? first.error : undefined }, 'cannot read the leader key');
    return this.#failed();
  }

  /**
   * Writes `members` as the next publication on `read`:
   * 1. go on from what the store holds at our nonce, if a write whose reply was lost landed there;
   * 2. take the next Version, a new list epoch when the list changed or a write may have landed unseen;
   * 3. write the list step to it beside the broadcast (best effort);
   * 4. compare-and-set at our nonce against what the read found there, moving on to the next
   *    nonce while they are unavailable (not on a timeout while the store is slow as a whole:
   *    `CompoundKey.holdsOn`).
   */
  async write(read: LeaderWindowRead, members: Member[]): Promise<WriteOutcome> {
    const { clock, operationTimeoutMs, kv, logger } = this.#o.config;
    const key = this.#o.leaderKey;
    // 1. Version never goes back, and a list change is judged against what followers may have seen.
    const at = read.slots[key.nonce];
    const stored = at?.state === 'broadcast' && sameLeadership(at.broadcast, this.#me) ? at.broadcast : undefined;
    const base = stored !== undefined && stored.version > this.#me.version ? stored : this.#me;
    // 2. The Version jumps to the next list epoch when the list changed, so a follower's header
    // poll sees it; and above every Version tried when one may have landed unseen (at another
    // nonce, say) with another list, which followers may have fetched.
    const unsure = this.#attempted > this.#me.version;
    const version = nextVersion(Math.max(base.version, this.#attempted), unsure || !sameMembers(base.members, members));
    const next: Broadcast = { ...this.#me, version, members };
    const raw = formatBroadcast(next);
    this.#attempted = Math.max(this.#attempted, version);
    // 3.
    this.#writeStep(next);
    // 4.
    for (let attempt = 0; attempt < key.window; attempt++) {
      const slot = read.slots[key.nonce];
      // A read that timed out on a store slow as a whole says nothing of this nonce: stay at it.
      if (slot?.state === 'unavailable' && key.holdsOn(slot.error)) return this.#failed();
      if (slot === undefined || slot.state === 'unavailable') {
        key.advance();
        continue;
      }
      if (slot.state === 'behind') {
        // Moved to a nonce whose value was read by its header only: read it whole, then publish.
        this.#trustOwn = false;
        return { outcome: 'conflict' };
      }
      // Garbage is replaced by its exact text: a header in front of garbage names nothing.
      const { expected, options } = slot.state === 'broadcast' ? expectedValue(kv, slot.raw) : { expected: slot.state === 'empty' ? null : slot.raw, options: {} };
      try {
        // `urgent`: the lease renewal goes before the PONG round where both wait for one pool.
        const { swapped } = await withDeadline(clock, operationTimeoutMs, 'publish', kv.compareAndSet(key.current, expected, raw, { ...options, urgent: true }));
        if (this.#o.ending()) return { outcome: 'ended' };
        if (!swapped) {
          this.#o.stats.count('publish.conflict');
          this.#trustOwn = false;
          return { outcome: 'conflict' };
        }
        this.#trustOwn = true;
        this.#o.stats.count('publish');
        if (this.#o.lease.lapsed) this.#o.stats.count('publish.revalidating');
        this.#me = next;
        this.#raw = raw;
        this.#listBase = next;
        if (this.#failing) logger.info({ node: this.#o.config.id }, 'publishing works again');
        this.#failing = false;
        return { outcome: 'published', broadcast: next };
      } catch (error) {
        if (this.#o.ending()) return { outcome: 'ended' };
        if (!key.failedOn(error)) {
          if (!this.#failing) logger.warn({ err: error }, 'publish failed'); // once, when it starts failing
          return this.#failed();
        }
        key.advance();
      }
    }
    return this.#failed();
  }

  /**
   * Holds beats off for one cycle of the node (its read and publication): resolves once a beat in
   * flight has landed or failed, so that the cycle reads what the beat wrote; no beat starts until
   * the returned function is called.
   */
  async hold(): Promise<() => void> {
    this.#held = true;
    await this.#beating;
    return () => {
      this.#held = false;
    };
  }

  /**
   * Beats at `at` (local time), unless a cycle holds beats off then. Not at all when `at` has
   * passed already (the publication landed after it, on a slow store or a busy node): the beat
   * halves the age of the last publication, and one that landed that late is already that young;
   * a beat then would only delay the next cycle, the one that renews the lease, by its round trip
   * (on a store answering in 40-60 ms, that made a new leader's lease lapse at every cycle).
   */
  scheduleBeat(at: number): void {
    const { clock } = this.#o.config;
    this.#beatTimer?.cancel();
    this.#beatTimer = undefined;
    if (at <= clock.now()) return;
    this.#beatTimer = clock.setTimer(() => {
      this.#beatTimer = undefined;
      if (this.#held || this.#o.ending() || this.#beating) return;
      this.#beating = this.#beat().finally(() => (this.#beating = undefined));
    }, at - clock.now());
  }

  /** No more beats; resolves when a beat in flight has landed or failed. */
  async stop(): Promise<void> {
    this.#beatTimer?.cancel();
    await this.#beating;
  }

  /**
   * Leadership consolidation: a dethroned leader hands `members` to the winner by appending them
   * to the join key, so that they are admitted at once instead of each rejoining after the timeout.
   */
  handOver(members: readonly Member[]): Promise<void> {
    const { kv, clock, operationTimeoutMs } = this.#o.config;
    const tokens = members.map((m) => ` ${formatMember(m)}`).join('');
    return withDeadline(clock, operationTimeoutMs, 'hand-over', kv.append(this.#o.keys.join().current, tokens)).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Publishes a goodbye (no members, next Version) so that followers elect at once, by
   * compare-and-set. When the compare fails because the key holds a later version of this same
   * leadership (a publication whose reply was lost), it says goodbye over that one; it never
   * overwrites another leadership's claim.
   */
  async goodbye(): Promise<void> {
    const { kv, clock, operationTimeoutMs, logger, id } = this.#o.config;
    const key = this.#o.leaderKey.current;
    let expected: string | null = this.#raw;
    let me = this.#me;
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const goodbye = formatBroadcast({ ...me, version: me.version + 1, members: [] });
        const expect = expectedValue(kv, expected);
        const { swapped } = await withDeadline(clock, operationTimeoutMs, 'goodbye', kv.compareAndSet(key, expect.expected, goodbye, expect.options));
        if (swapped) return logger.info({ node: id }, 'said goodbye');
        expected = await withDeadline(clock, operationTimeoutMs, 'goodbye read', kv.get(key));
        const there = expected === null ? undefined : parseBroadcast(expected);
        if (!there?.ok || !sameLeadership(there.broadcast, me) || isGoodbye(there.broadcast)) break;
        me = there.broadcast;
      }
      logger.info({ node: id }, 'no goodbye written: the leader key holds another leadership');
    } catch (error) {
      logger.warn({ err: error }, 'could not say goodbye');
    }
  }

  /**
   * Writes the step from the last list surely published to the list of `next`, when `next` starts
   * a new list epoch, before `next` itself is written (see `ListStep`): followers that hold the old
   * list read this step instead of the whole broadcast. Best effort, not awaited: a step that
   * fails, or that would not be smaller than the list, leaves followers to read the list whole.
   */
  #writeStep(next: Broadcast): void {
    const base = this.#listBase;
    if (base === undefined || base.members.length === 0 || base.version === 0) return;
    const from = listIdOf(base);
    const to = listIdOf(next);
    if (sameListId(from, to)) return;
    const step = diffLists(from, base.members, to, next.members);
    if (step === undefined) return;
    const { kv, clock, operationTimeoutMs, timing } = this.#o.config;
    this.#o.stats.count('list.step.write');
    withDeadline(clock, operationTimeoutMs, 'list step write', kv.set(this.#o.keys.listStep(to), formatListStep(step), { ttlMs: timing.listStepTtlMs })).catch(() => {
      // A missed shortcut: followers read the whole list. The store's failures are logged by the publication.
      this.#o.stats.count('list.step.failed');
    });
  }

  /**
   * A beat: the same list at the next Version, by compare-and-set against what this leader last
   * wrote at its nonce. It cannot replace anyone else's write, and it never renews the lease (a
   * candidate that sees it only waits longer). Never rejects.
   */
  async #beat(): Promise<void> {
    const { clock, kv, operationTimeoutMs } = this.#o.config;
    // After a write whose outcome is unknown, only a cycle (a read, then a fresh epoch) publishes.
    if (this.#attempted > this.#me.version) return;
    const next: Broadcast = { ...this.#me, version: nextVersion(this.#me.version, false) };
    const raw = formatBroadcast(next);
    this.#attempted = next.version;
    const { expected, options } = expectedValue(kv, this.#raw);
    try {
      // `urgent`, as a publication's (see write).
      const { swapped } = await withDeadline(clock, operationTimeoutMs, 'beat', kv.compareAndSet(this.#o.leaderKey.current, expected, raw, { ...options, urgent: true }));
      if (this.#o.ending()) return;
      if (!swapped) {
        // Another write (a claim, or our own publication whose reply was lost): read at once.
        this.#o.stats.count('publish.conflict');
        return this.#o.poke();
      }
      this.#o.stats.count('beat');
      this.#me = next;
      this.#raw = raw;
      this.#o.onBeat?.(next);
    } catch {
      // The next cycle reads and publishes; its failures are the ones logged.
    }
  }

  #failed(): { readonly outcome: 'failed' } {
    this.#failing = true;
    return { outcome: 'failed' };
  }
}

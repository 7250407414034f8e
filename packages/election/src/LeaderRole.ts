import { RosterKeys, formatBroadcast, formatMember, isGoodbye, parseBroadcast, sameLeadership, type Broadcast, type Member } from '@roster/follower';
import { type LeaderWindowRead, type OwnPublication } from './LeaderWindow.js';
import { diffLists, formatListStep, listIdOf, sameListId } from './listStep.js';
import { expectedValue, nextVersion, sameMembers } from './versions.js';
import { LocalDeadline, isKeyFailure, withDeadline, type CompoundKey, type Timer } from '@roster/kv-adapter';
import type { ResolvedConfig } from './config.js';
import { LeadershipLostError } from './errors.js';
import type { LeadershipLossReason } from './events.js';
import { JoinPoller } from './JoinPoller.js';
import { Membership } from './Membership.js';
import type { NodeStats } from './NodeStats.js';
import { PongRound } from './PongRound.js';
import { PongWorker } from './PongWorker.js';

/** Options of {@link LeaderRole}. */
export interface LeaderRoleOptions {
  readonly config: ResolvedConfig;
  readonly keys: RosterKeys;
  /** The leader key as this node writes it; publication moves it when a nonce is unavailable. */
  readonly leaderKey: CompoundKey;
  readonly stats: NodeStats;
  /** The confirmed claim and its exact text in the store. */
  readonly claim: Broadcast;
  readonly raw: string;
  /** The members taken over from the leadership this one replaces. */
  readonly inherited: readonly Member[];
  /**
   * The broadcast `inherited` was taken from, when there was one: the first list change is written
   * as a step from its list, so followers that hold it need not read the new list whole.
   */
  readonly inheritedFrom?: Broadcast;
  /**
   * Called when the lease runs out before it was renewed (the node then re-validates it), before
   * the leadership signal aborts.
   */
  readonly onLapse: (reason: 'lease-expired' | 'store-unavailable') => void;
  /** Called when a lapsed lease holds again (a fresh {@link LeaderRole.signal}). */
  readonly onRevalidate: () => void;
  /** Asks the node for a step now (a LEAVE arrived, a beat met another write). */
  readonly poke: () => void;
  /** Called with each beat that landed (see {@link LeaderRole.hold}). */
  readonly onBeat?: (b: Broadcast) => void;
}

/** How one publication ended. */
export type PublishOutcome =
  /**
   * Written; `renewed` says whether the lease now holds, `again` that a lapsed lease would be
   * re-validated by another cycle at once (see {@link LeaderRole}).
   */
  | { readonly outcome: 'published'; readonly broadcast: Broadcast; readonly renewed: boolean; readonly again: boolean }
  /** Another write replaced the value we read: read again at once. */
  | { readonly outcome: 'conflict' }
  /** The store did not take it (unreachable, timed out, every nonce unavailable). */
  | { readonly outcome: 'failed' }
  /** Leadership ended meanwhile: nothing was written after that. */
  | { readonly outcome: 'ended' };

/**
 * Everything a node holds while it leads (seed 003 §3–4): the lease, the member list, publication
 * by compare-and-set, a PONG worker per follower, the JOIN poller, and the one way leadership ends
 * ({@link end}), whatever the reason.
 *
 * The lease: after a publication whose cycle started at `s`, the node may call itself leader
 * until `s + R` (R = renewDeadlineMs) on its local clock, provided the publication before it
 * started its cycle after `s − R`. A follower stands only after the Version stood still for
 * T > R + operation timeout, so the lease always ends first.
 *
 * A lease that ran out (a pause, a slow store) is not abandoned but re-validated: the leader keeps
 * reading and publishing by compare-and-set; the first publication after the lapse shows followers
 * it is alive but does not renew the lease, the next one (at once) does, if no better leadership
 * appeared in between; the read before that second publication must have seen every nonce. Until then `holdsLease()` is false and the leadership signal is aborted.
 * See docs/protocol.md for why two publications.
 *
 * Halfway between two cycles the leader also **beats**: it publishes the same list at the next
 * Version by compare-and-set against what it last wrote, without a read. A beat never renews the
 * lease; it only shows followers that the leader is alive, so that its last publication before a
 * pause is at most I/2 old (the stall tolerance is T − I/2, not T − I). A beat that meets another
 * write asks for a cycle at once.
 */
export class LeaderRole {
  readonly #o: LeaderRoleOptions;
  readonly #membership: Membership;
  /** The last list surely published (or, before the first publication, inherited): the base of the next step. */
  #listBase: Broadcast | undefined;
  readonly #poller: JoinPoller;
  readonly #workers = new Map<string, PongWorker>();
  /** The beat the PONG workers share, so that their commands of one interval leave together. */
  readonly #round: PongRound;
  /** Each follower's PING → PONG round trip, as it reported it in its last PING (seed 001). */
  readonly #latencies = new Map<string, number>();

  /** Each follower's reported PING → PONG round trip (ms), by id. */
  get latencies(): ReadonlyMap<string, number> {
    return this.#latencies;
  }
  readonly #joiners: Member[] = [];
  readonly #leavers = new Set<string>();
  readonly #lease: LocalDeadline;
  #abort = new AbortController();
  #me: Broadcast;
  #raw: string;
  #leaseUntil = -Infinity;
  /** Cycle start of the last publication that landed. */
  #publishedCycle = -Infinity;
  #lapsed = false;
  /** False after a compare-and-set found something else than our last publication: read the window whole. */
  #trustOwn = true;
  /** True while the last publication attempt failed: a lease that runs out then is the store's doing. */
  #failing = false;
  #ending: Promise<void> | undefined;
  #beatTimer: Timer | undefined;
  /** The beat in flight, if any. */
  #beating: Promise<void> | undefined;
  /** True while the node's cycle (read, then publish) runs: no beat starts meanwhile. */
  #held = false;
  /**
   * The highest Version this leader has tried to write, landed or not. Above `#me`'s, a write whose
   * reply was lost may have landed at some nonce with its list: the next publication starts a
   * fresh list epoch above it, so that no two lists ever share an epoch.
   */
  #attempted: number;

  constructor(options: LeaderRoleOptions) {
    const { config, keys, stats } = options;
    const { clock, kv, logger, intervalMs, operationTimeoutMs, renewDeadlineMs } = config;
    this.#round = new PongRound({ clock, intervalMs, logger });
    this.#o = options;
    this.#me = options.claim;
    this.#raw = options.raw;
    this.#attempted = options.claim.version;
    this.#membership = new Membership({ id: config.id, weight: config.weight }, clock.now(), options.inherited);
    this.#listBase = options.inheritedFrom;
    this.#lease = new LocalDeadline(clock, renewDeadlineMs, () => this.lapse());
    this.#poller = new JoinPoller({
      kv,
      key: keys.join(),
      clock,
      logger,
      intervalMs,
      opTimeoutMs: operationTimeoutMs,
      // One by one: a spread of a huge join value (a flood) would overflow the call stack.
      onJoin: (ms) => {
        for (const m of ms) this.#joiners.push(m);
      },
      onGarbage: () => stats.count('garbage'),
    });
  }

  /** The leadership as last published. */
  get broadcast(): Broadcast {
    return this.#me;
  }

  /** Every member, the leader first. */
  get members(): Member[] {
    return this.#membership.list();
  }

  /**
   * The last publication, at the nonce it was written, for the next read of the window to be
   * compared with (`LeaderWindow.check`: headers only where nothing changed); `undefined` after a
   * compare-and-set failed, so that the next read is of whole values.
   */
  get own(): OwnPublication | undefined {
    return this.#trustOwn ? { nonce: this.#o.leaderKey.nonce, broadcast: this.#me, raw: this.#raw } : undefined;
  }

  /** Aborts (with a {@link LeadershipLostError}) when leadership ends. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** True while the lease holds at `now`. */
  holdsLease(now: number): boolean {
    return this.#ending === undefined && !this.#lapsed && now < this.#leaseUntil;
  }

  /**
   * Marks the lease as lapsed (its deadline passed; the timer may not have run in a pause): the
   * leadership signal aborts and the owner is told, once per lapse. Leadership is not over: the
   * next publications re-validate it.
   */
  lapse(): void {
    if (this.#ending || this.#lapsed) return;
    this.#lapsed = true;
    this.#lease.cancel();
    const reason = this.#failing ? 'store-unavailable' : 'lease-expired';
    this.#o.config.logger.info({ node: this.#o.config.id, reason }, 'lease lapsed; re-validating');
    // The owner tells its users first, so that code the abort wakes sees the role already changed.
    this.#o.onLapse(reason);
    this.#abort.abort(new LeadershipLostError(reason));
  }

  /**
   * Starts leading: the lease from `leaseFrom` (the start of the read that confirmed), the JOIN
   * poller. The PONG workers start with the first publication that lands: in a group of N, N
   * workers' first commands would otherwise queue ahead of that publication, which is what
   * followers are waiting for (they watch the claim, and stand again if it stays still).
   */
  start(leaseFrom: number): void {
    this.#publishedCycle = leaseFrom;
    // A confirming read slower than R leaves no lease to start with: re-validate from the outset.
    if (!this.#renew(leaseFrom)) this.lapse();
    this.#poller.start();
  }

  /**
   * One publication, based on `read` (which the node has checked for a better leadership): admit
   * joiners, drop the silent, bump Version and write by compare-and-set against what was read, so
   * that a claim written in between is never overwritten. Renews the lease from `cycleStart`.
   */
  async publish(read: LeaderWindowRead, cycleStart: number): Promise<PublishOutcome> {
    const { clock, timeoutMs, operationTimeoutMs, kv, logger } = this.#o.config;
    const key = this.#o.leaderKey;
    if (this.#ending) return { outcome: 'ended' };
    if (!read.reachable) {
      const first = read.slots[0];
      if (!this.#failing) this.#o.config.logger.warn({ err: first?.state === 'unavailable' ? first.error : undefined }, 'cannot read the leader key'); // once
      return this.#failed();
    }
    // Re-validation rests on the read: a better leadership must not hide behind an unavailable
    // nonce, so a read that missed one publishes (followers see the leader alive) but never renews.
    const complete = !read.slots.some((slot) => slot.state === 'unavailable');
    const now = clock.now();
    // After a lapse the PONG workers may not have run: every member gets a full T again.
    if (this.#lapsed) this.#membership.refresh(now);
    this.#membership.admit(this.#joiners.splice(0), now);
    for (const id of this.#leavers) this.#membership.remove(id);
    this.#leavers.clear();
    this.#membership.dropSilent(now, timeoutMs);
    const members = this.#membership.list();
    // A publication whose reply was lost may have landed: go on from what the store holds, so that
    // Version never goes back and a list change is judged against what followers may have seen.
    const at = read.slots[key.nonce];
    const stored = at?.state === 'broadcast' && sameLeadership(at.broadcast, this.#me) ? at.broadcast : undefined;
    const base = stored !== undefined && stored.version > this.#me.version ? stored : this.#me;
    // The Version jumps to the next list epoch when the list changed, so a follower's header poll
    // sees it; and above every Version tried when one may have landed unseen (at another nonce,
    // say) with another list, which followers may have fetched.
    const unsure = this.#attempted > this.#me.version;
    const version = nextVersion(Math.max(base.version, this.#attempted), unsure || !sameMembers(base.members, members));
    const next: Broadcast = { ...this.#me, version, members };
    const raw = formatBroadcast(next);
    this.#attempted = Math.max(this.#attempted, version);
    this.#writeStep(next);
    for (let attempt = 0; attempt < key.window; attempt++) {
      const slot = read.slots[key.nonce];
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
        const { swapped } = await withDeadline(clock, operationTimeoutMs, 'publish', kv.compareAndSet(key.current, expected, raw, options));
        if (this.#ending) return { outcome: 'ended' };
        if (!swapped) {
          this.#o.stats.count('publish.conflict');
          this.#trustOwn = false;
          return { outcome: 'conflict' };
        }
        this.#trustOwn = true;
        this.#o.stats.count('publish');
        this.#me = next;
        this.#raw = raw;
        this.#listBase = next;
        if (this.#failing) logger.info({ node: this.#o.config.id }, 'publishing works again');
        this.#failing = false;
        // Renew only when the previous publication started its cycle within R of this one (within
        // T − R − operation timeout when re-validating, see docs/protocol.md): after a lapse, the
        // first publication only re-arms the chain, the next one renews.
        const { renewDeadlineMs: R } = this.#o.config;
        const chain = this.#lapsed ? (complete ? this.#o.config.timing.revalidateChainMs : -Infinity) : R;
        const renewed = cycleStart - this.#publishedCycle < chain && this.#renew(cycleStart);
        this.#publishedCycle = cycleStart;
        this.#syncWorkers();
        this.#scheduleBeat(cycleStart + this.#o.config.timing.beatOffsetMs);
        return { outcome: 'published', broadcast: next, renewed, again: !renewed && this.#lapsed && complete };
      } catch (error) {
        if (this.#ending) return { outcome: 'ended' };
        if (!isKeyFailure(error)) {
          if (!this.#failing) logger.warn({ err: error }, 'publish failed'); // once, when it starts failing
          return this.#failed();
        }
        key.advance();
      }
    }
    return this.#failed();
  }

  /**
   * Writes the step from the last list surely published to the list of `next`, when `next` starts
   * a new list epoch, before `next` itself is written (see `ListStep`): followers that hold the old
   * list read this step instead of the whole broadcast. Best effort, not awaited: a step that
   * fails, or that would not be smaller than the list, leaves followers to read the list whole.
   * The step expires after 4T (a follower further behind reads the whole list anyway).
   */
  #writeStep(next: Broadcast): void {
    const base = this.#listBase;
    if (base === undefined || base.members.length === 0 || base.version === 0) return;
    const from = listIdOf(base);
    const to = listIdOf(next);
    if (sameListId(from, to)) return;
    const step = diffLists(from, base.members, to, next.members);
    if (step === undefined) return;
    const { kv, clock, operationTimeoutMs, timeoutMs } = this.#o.config;
    this.#o.stats.count('list.step.write');
    withDeadline(clock, operationTimeoutMs, 'list step write', kv.set(this.#o.keys.listStep(to), formatListStep(step), { ttlMs: this.#o.config.timing.listStepTtlMs })).catch(() => {
      // A missed shortcut: followers read the whole list. The store's failures are logged by the publication.
      this.#o.stats.count('list.step.failed');
    });
  }

  /**
   * Ends leadership, the one teardown path: the lease is cancelled, the leadership signal aborts
   * with `reason`, the loops stop. A dethroned leader hands its members to the winner; a stopped
   * one says goodbye (both best effort, bounded by one operation timeout). Idempotent; never rejects.
   */
  end(reason: LeadershipLossReason): Promise<void> {
    if (this.#ending) return this.#ending;
    const { config } = this.#o;
    this.#lease.cancel();
    this.#beatTimer?.cancel();
    this.#leaseUntil = -Infinity;
    this.#abort.abort(new LeadershipLostError(reason));
    config.logger.info({ node: config.id, reason, era: this.#me.era }, 'stopped leading');
    // A beat in flight lands (or fails) before the goodbye, which replaces what this leader last wrote.
    const loops = Promise.all([this.#poller.stop(), ...[...this.#workers.values()].map((w) => w.stop()), this.#beating]);
    const handOver = reason === 'dethroned' ? this.#handOver() : Promise.resolve();
    this.#ending = Promise.all([loops, handOver]).then(() => (reason === 'stopped' ? this.#goodbye() : undefined));
    return this.#ending;
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

  #scheduleBeat(at: number): void {
    const { clock } = this.#o.config;
    this.#beatTimer?.cancel();
    this.#beatTimer = clock.setTimer(() => {
      this.#beatTimer = undefined;
      if (this.#held || this.#ending || this.#beating) return;
      this.#beating = this.#beat().finally(() => (this.#beating = undefined));
    }, Math.max(0, at - clock.now()));
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
      const { swapped } = await withDeadline(clock, operationTimeoutMs, 'beat', kv.compareAndSet(this.#o.leaderKey.current, expected, raw, options));
      if (this.#ending) return;
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

  #failed(): PublishOutcome {
    this.#failing = true;
    return { outcome: 'failed' };
  }

  /** Sets the lease to `cycleStart + R`; true when it holds now (a lapse is then over). */
  #renew(cycleStart: number): boolean {
    const { clock, renewDeadlineMs, logger, id } = this.#o.config;
    if (cycleStart + renewDeadlineMs <= clock.now()) return false;
    this.#leaseUntil = cycleStart + renewDeadlineMs;
    this.#lease.arm(cycleStart);
    if (this.#lapsed) {
      this.#lapsed = false;
      this.#abort = new AbortController();
      this.#o.stats.count('lease.revalidated');
      logger.info({ node: id, era: this.#me.era }, 'lease re-validated');
      this.#o.onRevalidate();
    }
    return true;
  }

  /** Starts a PONG worker for every follower, stops those of members gone. */
  #syncWorkers(): void {
    const { kv, clock, logger, intervalMs, timeoutMs, operationTimeoutMs } = this.#o.config;
    const ids = new Set(this.#membership.followerIds());
    for (const [id, worker] of this.#workers) {
      if (ids.has(id)) continue;
      void worker.stop();
      this.#workers.delete(id);
      this.#latencies.delete(id);
    }
    for (const id of ids) {
      if (this.#workers.has(id)) continue;
      const worker = new PongWorker({
        kv,
        key: this.#o.keys.idKey(id),
        clock,
        logger,
        intervalMs,
        quietMs: this.#o.config.timing.followerQuietMs,
        opTimeoutMs: operationTimeoutMs,
        round: this.#round,
        onPing: (rttMs) => {
          this.#o.stats.count('pong');
          if (rttMs !== undefined) this.#latencies.set(id, rttMs);
          this.#membership.pinged(id, clock.now());
          // A PING written over its LEAVE: the member came back (restarted) before the leave was
          // published (the leader could not publish meanwhile): it stays.
          this.#leavers.delete(id);
        },
        onLeave: () => {
          if (this.#ending || !this.#membership.has(id)) return;
          this.#leavers.add(id);
          this.#o.poke();
        },
      });
      this.#workers.set(id, worker);
      worker.start();
    }
  }

  /**
   * Leadership consolidation (seed 000): a dethroned leader hands its member list to the winner by
   * appending it to the join key, so that its members are admitted at once instead of each
   * rejoining after the timeout.
   */
  #handOver(): Promise<void> {
    const { kv, clock, operationTimeoutMs } = this.#o.config;
    const tokens = this.#membership.list().map((m) => ` ${formatMember(m)}`).join('');
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
  async #goodbye(): Promise<void> {
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
}

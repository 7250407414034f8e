import { bestBroadcast, compareLeadership, type Broadcast, type Member, type RosterKeys } from '@roster/follower';
import type { CompoundKey } from '@roster/kv-adapter';
import type { ResolvedConfig } from './config.js';
import type { LeadershipLossReason } from './events.js';
import { Lease, type LapseReason } from './Lease.js';
import type { LeaderWindowRead, OwnPublication, Pace } from '@roster/follower/internal';
import { MemberIntake } from './MemberIntake.js';
import type { NodeStats } from './NodeStats.js';
import { Publisher } from './Publisher.js';

/** What the leader's role needs of its node. */
export interface LeaderHost {
  readonly config: ResolvedConfig;
  readonly keys: RosterKeys;
  readonly stats: NodeStats;
  /** How much the node backs off on a slow store: its PONG round (see the timing table). */
  readonly pace: Pace;
  /** The leader key as this node writes it; publication moves it when a nonce is unavailable. */
  readonly leaderKey: CompoundKey;
  /** Reads the leader window, comparing it with `own`, the last publication (see `LeaderWindow.check`). */
  read(own: OwnPublication | undefined): Promise<LeaderWindowRead>;
  /** Whether `role` is still the node's leadership (a step in flight after it ended changes nothing). */
  current(role: LeaderRole): boolean;
  /** Takes in a read of the window (see RosterNode). */
  absorb(read: LeaderWindowRead): void;
  /** Asks the node for a step now (a LEAVE arrived, a conflict met, a lapse to re-validate). */
  poke(): void;
  /**
   * The lease lapsed (users are told `candidate`, before the leadership signal aborts) or holds
   * again (`leader`, with a fresh signal).
   */
  leaseChanged(role: LeaderRole, shown: 'leader' | 'candidate', reason: LapseReason | 'revalidated'): void;
  /** A publication (or, `beat`, a beat) landed. */
  published(role: LeaderRole, b: Broadcast, beat: boolean): void;
  /** A step found a better leadership: the node steps down (see {@link LeaderRole.end}). */
  dethroned(role: LeaderRole): void;
  /**
   * A member of higher priority has PINGed this leader for the settle time: the node hands over to
   * it, as `resign()` does (see RosterNode).
   */
  preempt(role: LeaderRole, to: Member): void;
  /** Whether the node is stopped (destroyed while leadership was ending: no goodbye then). */
  stopped(): boolean;
}

/** Options of {@link LeaderRole}. */
export interface LeaderRoleOptions {
  readonly host: LeaderHost;
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
 * Everything a node holds while it leads: its {@link Lease}, its {@link MemberIntake} (the member
 * list, the JOIN poller, a PONG worker per follower), its {@link Publisher} (publications, beats,
 * list steps, goodbye), and the one way leadership ends ({@link end}) when it is dethroned,
 * stopped or destroyed. A lapse does not end it.
 *
 * The lease: after a publication whose cycle started at `s`, the node may call itself leader
 * until `s + R` (R = renewDeadlineMs) on its local clock, provided the publication before it
 * started its cycle after `s − R`. A follower stands only after the Version stood still for
 * T > R + operation timeout, so the lease always ends first.
 *
 * A lease that ran out (a pause, a slow store) is not abandoned but re-validated: the leader keeps
 * reading and publishing by compare-and-set; the first publication after the lapse shows followers
 * it is alive but does not renew the lease, the next one (at once) does, if no better leadership
 * appeared in between; the read before that second publication must have seen every nonce. Until
 * then `holdsLease()` is false and the leadership signal is aborted (docs/protocol-rationale.md
 * says why two publications).
 */
export class LeaderRole {
  readonly #host: LeaderHost;
  readonly #lease: Lease;
  readonly #intake: MemberIntake;
  readonly #publisher: Publisher;
  /** Cycle start of the last publication that landed. */
  #publishedCycle = Number.NEGATIVE_INFINITY;
  #ending: Promise<void> | undefined;
  /** Whether the last publication met another write (it is retried at once only once in a row). */
  #conflicted = false;
  /** The length of the last cycle that published, from its start to its landing (ms). */
  #cycleMs: number | undefined;

  constructor(options: LeaderRoleOptions) {
    const host = options.host;
    this.#host = host;
    const { config, keys, stats } = host;
    const ending = (): boolean => this.#ending !== undefined;
    const poke = (): void => host.poke();
    this.#lease = new Lease({
      clock: config.clock,
      logger: config.logger,
      stats,
      id: config.id,
      renewDeadlineMs: config.renewDeadlineMs,
      reason: () => (this.#publisher.failing ? 'store-unavailable' : 'lease-expired'),
      onLapse: (reason) => {
        host.leaseChanged(this, 'candidate', reason);
        host.poke();
      },
      onRevalidate: () => host.leaseChanged(this, 'leader', 'revalidated'),
    });
    this.#intake = new MemberIntake({
      config,
      keys,
      stats,
      inherited: options.inherited,
      ending,
      poke,
      pongPeriodMs: () => config.timing.pongPeriodMs(host.pace.factor),
    });
    this.#publisher = new Publisher({
      config,
      keys,
      stats,
      leaderKey: host.leaderKey,
      claim: options.claim,
      raw: options.raw,
      ...(options.inheritedFrom && { inheritedFrom: options.inheritedFrom }),
      lease: this.#lease,
      ending,
      poke,
      onBeat: (b) => host.published(this, b, true),
    });
  }

  /** The leadership as last published. */
  get broadcast(): Broadcast {
    return this.#publisher.broadcast;
  }

  /** Every member, the leader first. */
  get members(): Member[] {
    return this.#intake.members();
  }

  /** Each follower's reported PONG round trip (ms), by id. */
  get pongRoundTrips(): ReadonlyMap<string, number> {
    return this.#intake.pongRoundTrips;
  }

  /**
   * The last publication, at the nonce it was written, for the next read of the window to be
   * compared with (`LeaderWindow.check`: headers only where nothing changed); `undefined` after a
   * compare-and-set failed, so that the next read is of whole values.
   */
  get own(): OwnPublication | undefined {
    return this.#publisher.own;
  }

  /** Aborts (with a `LeadershipLostError`) when the lease lapses or leadership ends. */
  get signal(): AbortSignal {
    return this.#lease.signal;
  }

  /** True while the lease holds at `now`. */
  holdsLease(now: number): boolean {
    return this.#lease.holds(now);
  }

  /** Lapses the lease now, if it has not lapsed yet (see {@link Lease.lapse}). */
  lapse(): void {
    this.#lease.lapse();
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
    if (!this.#lease.renew(leaseFrom)) this.lapse();
    this.#intake.start();
  }

  /**
   * One publication, based on `read` (which the node has checked for a better leadership); its
   * cycle started at `cycleStart`.
   */
  async publish(read: LeaderWindowRead, cycleStart: number): Promise<PublishOutcome> {
    const { clock, timing, renewDeadlineMs } = this.#host.config;
    // 1. Nothing is written once leadership ends, nor on a read that reached no nonce.
    if (this.#ending) return { outcome: 'ended' };
    if (!read.reachable) return this.#publisher.unreadable(read);
    // 2. The list: joiners admitted, leavers removed, the silent dropped.
    const members = this.#intake.take(clock.now(), this.#lease.lapsed);
    // 3. Written by compare-and-set against what the read found (see Publisher.write).
    const written = await this.#publisher.write(read, members);
    if (written.outcome !== 'published') return written;
    // 4. The lease is renewed only when the previous publication started its cycle within R of
    // this one: after a lapse, within T − R − operation timeout, on a read that saw every nonce
    // (a better leadership must not hide behind an unavailable one); the first publication after
    // a lapse only re-arms the chain, the next one renews.
    const complete = !read.slots.some((slot) => slot.state === 'unavailable');
    const lapsed = this.#lease.lapsed;
    // Re-validated only while cycles are quick enough for each to renew in time, both cycles of
    // the chain (`revalidateCycleMs`): re-validated by slower ones, a lease would lapse again at
    // the next, and the leader's work would be aborted and restarted at every cycle.
    const length = clock.now() - cycleStart;
    const quick = (ms: number): boolean => ms <= timing.revalidateCycleMs;
    const keepable = quick(Math.max(length, this.#cycleMs ?? length));
    this.#cycleMs = length;
    const chain = lapsed ? (complete && keepable ? timing.revalidateChainMs : Number.NEGATIVE_INFINITY) : renewDeadlineMs;
    const renewed = cycleStart - this.#publishedCycle < chain && this.#lease.renew(cycleStart);
    this.#publishedCycle = cycleStart;
    // 5. Every member listed gets a PONG worker; the beat comes half an interval later.
    this.#intake.sync();
    this.#publisher.scheduleBeat(cycleStart + timing.beatOffsetMs);
    // The next cycle at once only when this one could start a chain that re-validates.
    return { outcome: 'published', broadcast: written.broadcast, renewed, again: !renewed && lapsed && complete && quick(length) };
  }

  /** See {@link Publisher.hold}. */
  hold(): Promise<() => void> {
    return this.#publisher.hold();
  }

  /**
   * Leads from the read that confirmed the claim: publishes on that same read (by compare-and-set
   * against the claim, as every cycle does against what it read). Followers watch the claim and
   * stand again if it stays still, so the first publication goes out without another round trip.
   */
  async begin(read: LeaderWindowRead): Promise<void> {
    const release = await this.hold();
    try {
      await this.#cycle(read, read.startedAt);
    } finally {
      release();
    }
  }

  /**
   * One leader step: re-read the window; when it holds a better leadership, the node is told
   * (`onDethroned`) while beats are still held off; publish otherwise. A lease that ran out (the process was paused, the store slow) is
   * re-validated the same way: publications resume, and the lease holds again once two of them R
   * apart at most found nobody better.
   */
  async step(): Promise<void> {
    const cycleStart = this.#host.config.clock.now();
    if (!this.holdsLease(cycleStart)) this.lapse();
    const release = await this.hold();
    try {
      const read = await this.#host.read(this.own);
      if (!this.#host.current(this)) return;
      this.#host.absorb(read);
      if (bestBroadcast(read.broadcasts.filter((b) => compareLeadership(b, this.broadcast) < 0))) return this.#host.dethroned(this);
      await this.#cycle(read, cycleStart);
    } finally {
      release();
    }
  }

  /** Publishes on `read`, and takes in the outcome. */
  async #cycle(read: LeaderWindowRead, cycleStart: number): Promise<void> {
    const published = await this.publish(read, cycleStart);
    if (!this.#host.current(this)) return;
    // Another write met: read again at once, but once in a row (a stray writer that keeps
    // replacing the value must not make the leader spin at the store's speed).
    if (published.outcome === 'conflict' && !this.#conflicted) this.#host.poke();
    this.#conflicted = published.outcome === 'conflict';
    if (published.outcome !== 'published') return;
    this.#host.published(this, published.broadcast, false);
    // Re-validating: the next cycle, at once, renews the lease.
    if (published.again) this.#host.poke();
    // A member of higher priority, settled and healthy: hand over to it, from a lease that holds
    // (a lapsed leader first re-validates; its publications show the members it is alive).
    const now = this.#host.config.clock.now();
    const to = this.holdsLease(now) ? this.#intake.preferred(now) : undefined;
    if (to !== undefined) this.#host.preempt(this, to);
  }

  /**
   * Ends leadership, the one teardown path for a leader dethroned, resigned, stopped or destroyed:
   * the lease ends and its signal aborts with `reason`, the loops stop. A dethroned leader hands
   * its members to the winner; a resigned or stopped one says goodbye, once the loops have stopped
   * and `settle` (the leader's work winding down, bounded) has resolved, unless the node was
   * destroyed meanwhile. Each step is best effort, bounded by one operation timeout. Idempotent;
   * never rejects.
   */
  end(reason: LeadershipLossReason, settle?: () => Promise<void>): Promise<void> {
    if (this.#ending) return this.#ending;
    const { config } = this.#host;
    this.#lease.end(reason);
    config.logger.info({ node: config.id, reason, era: this.#publisher.broadcast.era }, 'stopped leading');
    // A beat in flight lands (or fails) before the goodbye, which replaces what this leader last wrote.
    const loops = Promise.all([this.#intake.stop(), this.#publisher.stop()]);
    const handOver = reason === 'dethroned' ? this.#publisher.handOver(this.#intake.members()) : Promise.resolve();
    // The next leader is elected on the goodbye: the leader's work has settled before it.
    const wound = Promise.all([loops, handOver, settle?.()]);
    const farewell = reason === 'stopped' || reason === 'resigned';
    this.#ending = wound.then(() => (farewell && !this.#host.stopped() ? this.#publisher.goodbye() : undefined));
    return this.#ending;
  }
}

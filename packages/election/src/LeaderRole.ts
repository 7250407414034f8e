import type { Broadcast, Member, RosterKeys } from '@roster/follower';
import type { CompoundKey } from '@roster/kv-adapter';
import type { ResolvedConfig } from './config.js';
import type { LeadershipLossReason } from './events.js';
import { Lease, type LapseReason } from './Lease.js';
import type { LeaderWindowRead, OwnPublication } from './LeaderWindow.js';
import { MemberIntake } from './MemberIntake.js';
import type { NodeStats } from './NodeStats.js';
import { Publisher } from './Publisher.js';

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
  readonly onLapse: (reason: LapseReason) => void;
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
  readonly #o: LeaderRoleOptions;
  readonly #lease: Lease;
  readonly #intake: MemberIntake;
  readonly #publisher: Publisher;
  /** Cycle start of the last publication that landed. */
  #publishedCycle = Number.NEGATIVE_INFINITY;
  #ending: Promise<void> | undefined;

  constructor(options: LeaderRoleOptions) {
    this.#o = options;
    const { config, keys, stats } = options;
    const ending = (): boolean => this.#ending !== undefined;
    this.#lease = new Lease({
      clock: config.clock,
      logger: config.logger,
      stats,
      id: config.id,
      renewDeadlineMs: config.renewDeadlineMs,
      reason: () => (this.#publisher.failing ? 'store-unavailable' : 'lease-expired'),
      onLapse: options.onLapse,
      onRevalidate: options.onRevalidate,
    });
    this.#intake = new MemberIntake({ config, keys, stats, inherited: options.inherited, ending, poke: options.poke });
    this.#publisher = new Publisher({
      config,
      keys,
      stats,
      leaderKey: options.leaderKey,
      claim: options.claim,
      raw: options.raw,
      ...(options.inheritedFrom && { inheritedFrom: options.inheritedFrom }),
      lease: this.#lease,
      ending,
      poke: options.poke,
      ...(options.onBeat && { onBeat: options.onBeat }),
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

  /** Each follower's reported PING → PONG round trip (ms), by id. */
  get latencies(): ReadonlyMap<string, number> {
    return this.#intake.latencies;
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
    const { clock, timing, renewDeadlineMs } = this.#o.config;
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
    const chain = lapsed ? (complete ? timing.revalidateChainMs : Number.NEGATIVE_INFINITY) : renewDeadlineMs;
    const renewed = cycleStart - this.#publishedCycle < chain && this.#lease.renew(cycleStart);
    this.#publishedCycle = cycleStart;
    // 5. Every member listed gets a PONG worker; the beat comes half an interval later.
    this.#intake.sync();
    this.#publisher.scheduleBeat(cycleStart + timing.beatOffsetMs);
    return { outcome: 'published', broadcast: written.broadcast, renewed, again: !renewed && lapsed && complete };
  }

  /** See {@link Publisher.hold}. */
  hold(): Promise<() => void> {
    return this.#publisher.hold();
  }

  /**
   * Ends leadership, the one teardown path for a leader dethroned, stopped or destroyed: the lease
   * ends and its signal aborts with `reason`, the loops stop. A dethroned leader hands its members
   * to the winner; a stopped one says goodbye (both best effort, bounded by one operation timeout).
   * Idempotent; never rejects.
   */
  end(reason: LeadershipLossReason): Promise<void> {
    if (this.#ending) return this.#ending;
    const { config } = this.#o;
    this.#lease.end(reason);
    config.logger.info({ node: config.id, reason, era: this.#publisher.broadcast.era }, 'stopped leading');
    // A beat in flight lands (or fails) before the goodbye, which replaces what this leader last wrote.
    const loops = Promise.all([this.#intake.stop(), this.#publisher.stop()]);
    const handOver = reason === 'dethroned' ? this.#publisher.handOver(this.#intake.members()) : Promise.resolve();
    this.#ending = Promise.all([loops, handOver]).then(() => (reason === 'stopped' ? this.#publisher.goodbye() : undefined));
    return this.#ending;
  }
}

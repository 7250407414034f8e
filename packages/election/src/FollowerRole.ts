import type { Member, RosterKeys } from '@roster/follower';
import type { Timer } from '@roster/kv-adapter';
import type { ResolvedConfig } from './config.js';
import type { Role, RoleChangeReason } from './events.js';
import { FaultLog } from './FaultLog.js';
import { selfMember } from './MemberIntake.js';
import { outranked } from './priorities.js';
import { Joiner, Pinger, type Following, type LeaderWindowRead, type Pace } from '@roster/follower/internal';
import type { NodeStats } from './NodeStats.js';
import type { NodeView } from './NodeView.js';
import { Ticker } from './Ticker.js';

/**
 * How members stand after the leader's broadcast went still for T, by their rank after the leader
 * in its list: the first three at T, the next 27 one tier spacing later (about an interval), the
 * rest two spacings later. A tier stands only if the claims of the tiers before it did not reach
 * the window by then.
 */
const STAND_TIERS = [3, 30] as const;

/** What the follower's role needs of its node. */
export interface FollowerHost {
  readonly config: ResolvedConfig;
  readonly keys: RosterKeys;
  readonly stats: NodeStats;
  readonly view: NodeView;
  readonly following: Following;
  /** How much the node backs off on a slow store: its PINGs, joins and candidacies (see the timing table). */
  readonly pace: Pace;
  /** The node's role in the protocol now. */
  role(): Role;
  /** Whether the node is running (not stopping, not stopped). */
  running(): boolean;
  /** Whether the node is stopped. */
  stopped(): boolean;
  /** Takes in a read of the leader window (see RosterNode). */
  absorb(read: LeaderWindowRead): void;
  /** Runs the node's step at once. */
  poke(): void;
}

/**
 * The follower: every rule of when a member stands is here. Each step it polls the leader window
 * and follows the best leadership; it stands when that leadership went still for T (later by its
 * tier, see {@link STAND_TIERS}), said goodbye, or (listed) has not PONGed for T + 2I, or when
 * no nonce could be read for T; it appends itself to the join key while the leader does not list
 * it. Its PINGs go on in every role but leader (a candidate is still a member), on a ticker of
 * their own.
 */
export class FollowerRole {
  readonly #host: FollowerHost;
  readonly #pinger: Pinger;
  readonly #joiner: Joiner;
  readonly #pingTicker: Ticker;
  readonly #pingLog: FaultLog;
  readonly #joinLog: FaultLog;
  #staleTimer: Timer | undefined;
  /** This node as a member: id, weight, priority. */
  readonly #self: Member;
  /** When this node last stood: it stands at most once per interval, whatever ended its candidacy. */
  #stoodAt = Number.NEGATIVE_INFINITY;
  /** Until when this node does not stand at all: it resigned (see {@link standAside}). */
  #asideUntil = Number.NEGATIVE_INFINITY;

  constructor(host: FollowerHost) {
    this.#host = host;
    this.#self = selfMember(host.config);
    const { kv, clock, logger, id, operationTimeoutMs, timing } = host.config;
    this.#pinger = new Pinger({ kv, key: host.keys.idKey(id), clock, opTimeoutMs: operationTimeoutMs });
    this.#joiner = new Joiner({ kv, key: host.keys.join(), clock, self: this.#self, opTimeoutMs: operationTimeoutMs });
    // Every interval on a healthy store; up to 2I − τ apart on a slow one (see `pingPeriodMs`).
    this.#pingTicker = new Ticker({ clock, periodMs: () => timing.pingPeriodMs(host.pace.factor), logger, name: 'pinger', step: () => this.#ping() });
    this.#pingLog = new FaultLog(logger, 'PING failed', 'PING works again');
    this.#joinLog = new FaultLog(logger, 'could not append to the join key');
  }

  /** Starts PINGing (an observer never does). */
  start(): void {
    if (!this.#host.config.observer) this.#pingTicker.start();
  }

  /** Stops PINGing; resolves when a PING in flight has ended. */
  stop(): Promise<void> {
    this.#quiet();
    return this.#pingTicker.stop();
  }

  /** Writes `LEAVE` at the id key, so that the leader drops this member at once (best effort). */
  async leave(): Promise<void> {
    if (this.#host.config.observer) return;
    await this.#pinger.leave().catch((error: unknown) => this.#host.config.logger.warn({ err: error }, 'could not leave'));
  }

  /** The node follows from now on (a candidacy or a leadership ended): a new leader owes no PONG yet. */
  followed(): void {
    this.#quiet();
    this.#joiner.reset();
    this.#host.following.pongBase = this.#host.config.clock.now();
  }

  /**
   * The node resigned: it does not stand for `standAsideMs` (T) from now, so that the others, who
   * stand at once on its goodbye, elect one of them. It goes on following, PINGing and joining; a
   * group where nobody else stands gets this node back as leader once that time is over.
   */
  standAside(): void {
    const { clock, timing } = this.#host.config;
    this.#asideUntil = clock.now() + timing.standAsideMs;
  }

  /** The node stands now. */
  stood(): void {
    this.#stoodAt = this.#host.config.clock.now();
  }

  /**
   * One follower step: read, follow, and answer why this node must stand now, if it must. An
   * observer whose leadership went still reads every nonce, so that it can move on to what the
   * store holds (see Following.absorb); a follower polls, and reads every nonce after a poll that
   * did not find the claim it follows (the store may have lost it).
   */
  async step(): Promise<RoleChangeReason | undefined> {
    const host = this.#host;
    const { clock, timing } = host.config;
    const f = host.following;
    const pace = host.pace.factor;
    // A follower of a claim its last read did not find reads every nonce, to see whether the store
    // lost it (see Following.mustReadEveryNonce).
    const whole = (host.role() === 'observer' && f.staleness.isStale(clock.now(), timing.timeoutMs)) || (host.role() === 'follower' && f.mustReadEveryNonce);
    // Due to stand: a look at the followed nonce is enough (its candidacy reads every nonce next).
    const deferring = this.#defers();
    const due = !whole && host.role() === 'follower' && f.standDue(clock.now(), this.#standDelay(deferring), deferring);
    // Due but for a nonce that newly failed: only a read of every nonce ends that wait.
    const look = !whole && !due && host.role() === 'follower' && f.mustLookAgain(clock.now(), this.#standDelay(deferring), deferring);
    // A still Version is scanned for less often on a slow store (`stillScanPacedMs`): there, it looks
    // still to every follower whose reads time out.
    const read = await f.read(undefined, whole || look ? 'read' : due ? 'peek' : 'poll', undefined, timing.stillScanPacedMs(pace));
    const role = host.role();
    if ((role !== 'follower' && role !== 'observer') || host.stopped()) return undefined;
    host.absorb(read);
    this.#scheduleStaleCheck();
    if (role === 'observer') return undefined;
    // A node stands at most once per interval: a candidacy that ended at once (a lost race, a
    // claim that found garbage changing under it) is followed by a full interval of following.
    // Less often on a slow store (see `restPacedMs`): I on a healthy one, at most T.
    const rested = clock.now() >= this.#stoodAt + timing.restPacedMs(pace);
    // A node that resigned does not stand at all while it stands aside.
    const aside = clock.now() < this.#asideUntil;
    // Whatever the reason nothing new was seen for T (even no nonce readable), stand: the claim
    // goes to the lowest nonce that can be written, and progress seen first ends the candidacy.
    // Not while the leader followed still PONGs this listed node: it is alive (see Following.standReason).
    // Reads that time out on a slow store are not a store gone: the stand waits longer (`standPacedMs`, none on a healthy store).
    if (!read.reachable) return rested && !aside && f.staleness.isStale(clock.now(), timing.timeoutMs + timing.standPacedMs(pace)) && f.mayStandUnreachable(clock.now(), this.#standDelay()) ? 'unreachable' : undefined;
    const leader = host.view.leader;
    const listed = leader !== undefined && host.view.lists(host.config.id);
    const defer = this.#defers();
    const stand = f.standReason(clock.now(), this.#standDelay(defer), leader, listed, defer);
    if (stand && rested && !aside) return stand;
    // Listed with another weight or priority (restarted with new settings before the leader
    // dropped it): it joins again, and the leader updates its record.
    const current = listed && host.view.listsExactly(this.#self);
    if (leader !== undefined && !current && this.#joiner.due(timing.joinRetryPacedMs(pace), timing.joinFailedWaitMs(pace))) {
      await this.#joiner.append().then(
        () => {
          host.stats.count('join.append');
          this.#joinLog.worked();
        },
        (error: unknown) => this.#joinLog.failed(error),
      );
    }
    return undefined;
  }

  /** PINGs the leader through the id key; a PONG proves the leader alive. */
  async #ping(): Promise<void> {
    const host = this.#host;
    if (host.role() === 'leader' || !host.running()) return;
    await this.#pinger.step().then(
      () => {
        host.stats.count('ping');
        this.#pingLog.worked({ node: host.config.id });
        host.following.pinged(this.#pinger.lastPongAt, this.#pinger.lastPongRoundTripMs, host.config.clock.now());
      },
      (error: unknown) => this.#pingLog.failed(error),
    );
  }

  /**
   * How much longer than T this follower waits before it stands, by its rank after the leader (by
   * id, the same order on every node; see {@link STAND_TIERS}): nothing for the first three, one
   * tier spacing for the next 27, two for the others. By then the earlier tiers' claims are in the
   * window, and the later members' polls (which scan every nonce once the Version is still) follow
   * a claim instead of standing. So a crash of the leader of N members starts a few candidacies,
   * not N. Standing later is always safe; a node not listed stands at T.
   */
  #standDelay(defer = this.#defers()): number {
    const { view, config } = this.#host;
    // Deferring to a member of higher priority: after every tier of those (see #defers).
    const deferred = defer ? (STAND_TIERS.length + 1) * this.#tierSpacing() : 0;
    const rank = view.rankOf(config.id, view.leader?.id);
    if (rank === undefined) return deferred;
    const tier = STAND_TIERS.findIndex((bound) => rank < bound);
    return deferred + (tier === -1 ? STAND_TIERS.length : tier) * this.#tierSpacing();
  }

  /**
   * Whether this node defers to a member of higher priority: the list it holds names one (other
   * than the leader followed or just gone, and this node). It then stands on a goodbye only once
   * the goodbye has been still for T, and on stillness later than every tier of candidates
   * ({@link STAND_TIERS}): the member of higher priority stands first and wins. With equal
   * priorities (all 0 by default) nobody defers: the rules are the same as without priorities.
   */
  #defers(): boolean {
    const { view, config, following } = this.#host;
    const gone = view.leader?.id ?? following.bestSeen?.id;
    return outranked(view.members.list, config.id, config.priority, gone);
  }

  /**
   * The time between two tiers of candidates: one interval, and more when this node's store round
   * trips are long (a loaded process, a slow store), since a claim takes two of them to land and
   * this node a poll to see it (see `Timing.tierSpacingMs`).
   */
  #tierSpacing(): number {
    return this.#host.config.timing.tierSpacingMs(this.#host.following.readEwma);
  }

  /**
   * Wakes the node when it is due to stand. Only for precision: the regular step every interval
   * checks as well. A stand due further than `staleCheckHorizonMs` from now is left to a later
   * step: in steady state the Version moves every interval, and a timer re-armed at every step
   * would be work for nothing.
   */
  #scheduleStaleCheck(): void {
    const { clock, timing } = this.#host.config;
    this.#quiet();
    if (this.#host.role() !== 'follower' || !this.#host.running()) return;
    const defer = this.#defers();
    const wait = this.#host.following.standAt(this.#standDelay(defer), defer) - clock.now();
    if (wait > 0 && wait <= timing.staleCheckHorizonMs) this.#staleTimer = clock.setTimer(() => this.#host.poke(), wait);
  }

  #quiet(): void {
    this.#staleTimer?.cancel();
    this.#staleTimer = undefined;
  }
}

import { RosterKeys, bestBroadcast, compareLeadership, formatBroadcast, isClaim, isGoodbye, sameLeadership, type Broadcast, type Member } from '@roster/follower';
import { Joiner } from './Joiner.js';
import { LeaderWindow, type LeaderWindowRead, type OwnPublication } from './LeaderWindow.js';
import { Pinger } from './Pinger.js';
import { Ticker } from './Ticker.js';
import type { CompoundKey, Timer } from '@roster/kv-adapter';
import { decide, writeClaim, type Candidacy } from './Candidacy.js';
import type { ResolvedConfig } from './config.js';
import { readEraRecord, recordEra, type EraRecord } from './eraRecord.js';
import { NodeStateError } from './errors.js';
import type { LeaderInfo, LeadershipLossReason, Role, RoleChangeReason, RosterUpdate, WatchFunction } from './events.js';
import { LeaderRole } from './LeaderRole.js';
import type { NodeState, RosterNode as RosterNodeApi } from './node.js';
import { NodeStats } from './NodeStats.js';
import { NodeView } from './NodeView.js';
import { Following } from './Following.js';

/**
 * How members stand after the leader's broadcast went still for T, by their rank after the leader
 * in its list: the first three at T, the next 27 one tier spacing later (about an interval), the
 * rest two spacings later. A tier stands only if the claims of the tiers before it did not reach
 * the window by then.
 */
const STAND_TIERS = [3, 30] as const;

/** The role with what the node holds in it. */
type Phase =
  | { readonly role: 'follower' | 'observer' }
  | { readonly role: 'candidate'; readonly candidacy: Candidacy }
  | { readonly role: 'leader'; readonly lead: LeaderRole };

/**
 * One member of a Roster cluster: the era/nonce/version protocol of seed 003 as a state machine.
 * Create it with `createNode()`.
 *
 * ```
 *            start                 Version stale for T, goodbye,            claim is best and
 *              │                   or no PONG for T + 2I                     others stale for T
 *              ▼                ┌───────────────────────┐               ┌────────────────────────┐
 *          follower ────────────┘                       ▼               │                        ▼
 *              ▲                                    candidate ──────────┘                      leader
 *              │  claim lost, better leader seen        │                                      │
 *              ├────────────────────────────────────────┘                                      │
 *              │  dethroned by a better leader, stopped                                        │
 *              └───────────────────────────────────────────────────────────────────────────────┘
 * ```
 *
 * A leader whose lease lapsed (a pause, a slow store) goes on as leader in the protocol (it
 * re-reads and publishes until its re-validated lease holds again, or a better leadership
 * dethrones it), but users are told `candidate` meanwhile: the role shown (`#shown`) is `leader`
 * exactly while the lease holds.
 *
 * Every transition is in this file. The candidate's rule is {@link decide}; what a leader holds
 * (lease, publication, PONG workers, JOIN poller, teardown) is a {@link LeaderRole}; the loops are
 * small collaborators it starts and stops.
 */
export class RosterNode implements RosterNodeApi {
  readonly id: string;
  readonly #cfg: ResolvedConfig;
  readonly #keys: RosterKeys;
  readonly #view: NodeView;
  /** The leader key as this node writes it (claims, publications). */
  readonly #leaderKey: CompoundKey;
  readonly #pinger: Pinger;
  readonly #joiner: Joiner;
  readonly #main: Ticker;
  readonly #pingTicker: Ticker;
  readonly #stats = new NodeStats();

  #state: NodeState = 'idle';
  #phase: Phase;
  /**
   * The role users were last told of (the last `role` update). It is the phase's role, except for
   * a leader whose lease does not hold: users see `candidate` until it is re-validated.
   */
  #shown: Role;
  /** When this node last stood: it stands at most once per interval, whatever ended its candidacy. */
  #stoodAt = Number.NEGATIVE_INFINITY;
  #stopping: Promise<void> | undefined;
  #started: Promise<void> | undefined;
  #firstStep: (() => void) | undefined;
  /** Whether the last PING failed (its failure is logged once, when it starts). */
  #pingFailing = false;
  /** Whether the last claim, or the last join, failed for the store (each logged once, likewise). */
  #claimFailing = false;
  #joinFailing = false;
  /** Whether the last publication met another write (it is retried at once only once in a row). */
  #conflicted = false;

  readonly #f: Following;
  /** Where the best broadcast was last found (or, leading, written): see `broadcastNonce`. */
  #broadcastNonce: number | undefined;
  #staleTimer: Timer | undefined;

  /** @internal Use `createNode()`. */
  constructor(config: ResolvedConfig) {
    this.#cfg = config;
    this.id = config.id;
    const { kv, clock, logger, intervalMs, operationTimeoutMs } = config;
    this.#keys = new RosterKeys(config.namespace, config.nonceWindow);
    this.#view = new NodeView(logger);
    this.#phase = { role: config.observer ? 'observer' : 'follower' };
    this.#shown = this.#phase.role;
    this.#leaderKey = this.#keys.leader();
    const onGarbage = (): void => this.#stats.count('garbage');
    // Followers poll one nonce's header; the whole window when the Version went still, or every 5T.
    const window = new LeaderWindow({
      kv,
      key: this.#keys.leader(),
      clock,
      logger,
      opTimeoutMs: operationTimeoutMs,
      stillMs: config.timing.stillMs,
      scanEveryMs: config.timing.scanEveryMs,
      listStepBudgetMs: config.timing.listStepBudgetMs,
      onGarbage,
      // A new list is built from the steps the leader writes beside the broadcast when possible.
      stepKey: (to) => this.#keys.listStep(to),
      ...(config.listCache && { lists: config.listCache }),
      onList: (how) => this.#stats.count(`list.${how}`),
    });
    this.#f = new Following(window, clock, config.timing, this.#stats);
    this.#pinger = new Pinger({ kv, key: this.#keys.idKey(this.id), clock, opTimeoutMs: operationTimeoutMs });
    this.#joiner = new Joiner({ kv, key: this.#keys.join(), clock, self: { id: this.id, weight: config.weight }, opTimeoutMs: operationTimeoutMs });
    this.#main = new Ticker({ clock, periodMs: intervalMs, logger, name: 'main', step: () => this.#step() });
    this.#pingTicker = new Ticker({ clock, periodMs: intervalMs, logger, name: 'pinger', step: () => this.#pingStep() });
  }

  // ─── Public surface (documented on the RosterNode interface) ─────────────────────────────────

  get role(): Role {
    this.#checkLease();
    return this.#shown;
  }
  get state(): NodeState {
    return this.#state;
  }
  get leader(): LeaderInfo | undefined {
    return this.#view.leader;
  }
  get members(): { readonly version: number; readonly list: readonly Member[] } {
    return this.#view.members;
  }
  get memberIds(): string[] {
    return this.#view.members.list.map((m) => m.id);
  }
  isLeader(): boolean {
    this.#checkLease();
    return this.#shown === 'leader';
  }
  get leadership(): AbortSignal | undefined {
    this.#checkLease();
    return this.#phase.role === 'leader' && this.#shown === 'leader' ? this.#phase.lead.signal : undefined;
  }
  latencies(): ReadonlyMap<string, number> {
    return this.#phase.role === 'leader' ? this.#phase.lead.latencies : new Map();
  }

  get latency(): { readonly windowReadMs: number | undefined; readonly pongRoundTripMs: number | undefined } {
    return { windowReadMs: this.#f.readEwma, pongRoundTripMs: this.#f.rttEwma };
  }
  get broadcastNonce(): number | undefined {
    return this.#broadcastNonce;
  }
  get stats(): Readonly<Record<string, number>> {
    return this.#stats.snapshot();
  }
  watch(fn: WatchFunction): () => void {
    return this.#view.watch(fn);
  }
  on<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void {
    return this.#view.on(type, fn);
  }
  updates(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<RosterUpdate> {
    return this.#view.updates(options.signal);
  }

  start(): Promise<void> {
    if (this.#started) return this.#started;
    if (this.#state !== 'idle') return Promise.reject(new NodeStateError(this.id, 'start', this.#state));
    this.#state = 'running';
    this.#cfg.logger.info({ node: this.id, role: this.#shown }, 'node starting');
    this.#started = new Promise<void>((resolve) => (this.#firstStep = resolve));
    this.#main.start();
    if (!this.#cfg.observer) this.#pingTicker.start();
    return this.#started;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  destroy(): void {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    this.#stopping ??= Promise.resolve();
    this.#quiet();
    void this.#main.stop();
    void this.#pingTicker.stop();
    const phase = this.#phase;
    if (phase.role === 'leader') {
      this.#setPhase({ role: 'follower' }, 'destroyed');
      void phase.lead.end('destroyed');
    }
    this.#finish();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  // ─── The state machine ───────────────────────────────────────────────────────────────────────

  async #step(): Promise<void> {
    try {
      const phase = this.#phase;
      switch (phase.role) {
        case 'follower':
        case 'observer':
          return await this.#followerStep();
        case 'candidate':
          return await this.#candidateStep(phase.candidacy);
        case 'leader':
          return await this.#leaderStep(phase.lead);
      }
    } finally {
      this.#firstStep?.();
      this.#firstStep = undefined;
    }
  }

  /** Follower: read the broadcast, follow it, stand when {@link Following.standReason} says so, or join. */
  async #followerStep(): Promise<void> {
    // An observer whose leadership went still may move on to what the store holds, which takes a
    // read of every nonce (see Following.absorb); otherwise a poll.
    const { clock, timeoutMs, intervalMs } = this.#cfg;
    const role = (): Role => this.#phase.role;
    const whole = role() === 'observer' && this.#f.staleness.isStale(clock.now(), timeoutMs);
    const read = await this.#f.read(undefined, whole ? 'read' : 'poll');
    if ((role() !== 'follower' && role() !== 'observer') || this.#state === 'stopped') return;
    this.#absorb(read);
    this.#scheduleStaleCheck();
    if (role() === 'observer') return;
    // A node stands at most once per interval: a candidacy that ended at once (a lost race, a
    // claim that found garbage changing under it) is followed by a full interval of following.
    const rested = clock.now() >= this.#stoodAt + this.#cfg.timing.restMs;
    // Whatever the reason nothing new was seen for T (even no nonce readable), stand: the claim
    // goes to the lowest nonce that can be written, and progress seen first ends the candidacy.
    if (!read.reachable) {
      if (rested && this.#f.staleness.isStale(clock.now(), timeoutMs)) this.#becomeCandidate('unreachable');
      return;
    }
    const leader = this.#view.leader;
    const listed = leader !== undefined && this.#view.lists(this.id);
    const stand = this.#f.standReason(clock.now(), this.#standDelay(), leader, listed);
    if (stand && rested) return this.#becomeCandidate(stand);
    if (leader !== undefined && !listed && this.#joiner.due(this.#cfg.timing.joinRetryMs)) {
      await this.#joiner.append().then(
        () => {
          this.#stats.count('join.append');
          this.#joinFailing = false;
        },
        (error: unknown) => {
          if (!this.#joinFailing) this.#cfg.logger.warn({ err: error }, 'could not append to the join key');
          this.#joinFailing = true;
        },
      );
    }
  }

  /** Follower: PING the leader through the id key; a PONG proves the leader alive. */
  async #pingStep(): Promise<void> {
    if (this.#phase.role === 'leader' || this.#state !== 'running') return;
    await this.#pinger.step().then(
      () => {
        this.#stats.count('ping');
        if (this.#pingFailing) this.#cfg.logger.info({ node: this.id }, 'PING works again');
        this.#pingFailing = false;
        this.#f.pinged(this.#pinger.lastPongAt, this.#pinger.lastRttMs);
      },
      (error: unknown) => {
        // Once per change of state, not once per interval.
        if (!this.#pingFailing) this.#cfg.logger.warn({ err: error }, 'PING failed');
        this.#pingFailing = true;
      },
    );
  }

  #becomeCandidate(reason: RoleChangeReason): void {
    this.#stoodAt = this.#cfg.clock.now();
    this.#stats.count('candidacy');
    this.#stats.count(`candidacy.${reason}`);
    this.#setPhase({ role: 'candidate', candidacy: { phase: 'unclaimed', basis: this.#f.bestSeen, others: this.#f.staleness.clone(), blind: reason === 'unreachable' } }, reason);
    this.#main.poke();
  }

  /**
   * The broadcast a candidate knows whole and where it was found, so that its reads of the window
   * take that nonce by its header when it still holds exactly that broadcast (`LeaderWindow.check`),
   * rather than reading the old leader's whole list again: after a crash in a group of N, each of
   * the few candidates would read N ids at every step.
   */
  #knownPublication(): OwnPublication | undefined {
    const b = this.#f.bestSeen;
    const nonce = this.#broadcastNonce;
    if (b === undefined || nonce === undefined || isGoodbye(b)) return undefined;
    if (this.#known?.broadcast !== b || this.#known.nonce !== nonce) this.#known = { nonce, broadcast: b, raw: formatBroadcast(b) };
    return this.#known;
  }
  #known: OwnPublication | undefined;

  /** Candidate: read, then claim, lead, follow or wait as {@link decide} rules. */
  async #candidateStep(c: Candidacy): Promise<void> {
    const { kv, clock, operationTimeoutMs } = this.#cfg;
    // Before a claim, the era record is read together with the window: a claim is then one round
    // trip after the read, not two (each round trip is long on a loaded node, and the later
    // members stand if the claim is not in the window by then).
    const record = c.phase === 'unclaimed' ? readEraRecord(kv, this.#keys.era(), clock, operationTimeoutMs, () => this.#stats.count('garbage')) : undefined;
    const read = await this.#f.read(c.others, 'read', this.#knownPublication());
    if (!this.#isCandidacy(c)) return;
    this.#absorb(read);
    const decision = decide(c, read, clock.now(), this.#cfg.timing);
    switch (decision.action) {
      case 'claim':
        return this.#claim(c, read, await record!);
      case 'follow':
        return this.#becomeFollower(decision.reason);
      case 'lead':
        if (c.phase === 'claimed') await this.#becomeLeader(c, read);
        return;
      case 'wait':
        if (c.phase === 'claimed' && decision.at !== undefined) {
          c.settle?.cancel();
          c.settle = clock.setTimer(() => this.#main.poke(), Math.max(0, decision.at - clock.now()));
        }
    }
  }

  /** Claims `max era seen + 1` (in the window and in the era `record`) at the lowest leader-key nonce it can write. */
  async #claim(c: Candidacy, read: LeaderWindowRead, record: EraRecord): Promise<void> {
    const { kv, clock, settleMs, operationTimeoutMs, weight, logger } = this.#cfg;
    this.#f.maxEra = Math.max(this.#f.maxEra, record.era);
    if (!this.#isCandidacy(c)) return;
    // A node that knows no era at all (it just started, and read none) cannot tell a new store from
    // one whose era is hidden: while a leader nonce and an era nonce are both unreadable, claiming
    // era 1 could rank below a leadership held there. It waits for one of them to answer.
    if (this.#f.maxEra === 0 && !record.complete && read.slots.some((s) => s.state === 'unavailable')) {
      this.#stats.count('claim.deferred');
      return;
    }
    const era = this.#f.maxEra + 1;
    const claim = { era, version: 0, id: this.id, members: [{ id: this.id, weight }] };
    const current = (): boolean => this.#isCandidacy(c);
    const writeStartedAt = clock.now();
    const written = await writeClaim({ kv, clock, opTimeoutMs: operationTimeoutMs, key: this.#leaderKey, read, claim, current });
    if (written.outcome !== 'claimed') this.#stats.count(`claim.${written.outcome}`);
    if (written.outcome === 'claimed' || written.outcome === 'race-lost') this.#claimFailing = false;
    switch (written.outcome) {
      case 'claimed': {
        // The claim replaced what the read saw there, so the candidate was looking until it landed:
        // the read, the claim and the settle time may together span more than two intervals on a
        // loaded node, which is not a pause (see Staleness.sawRead; a claim slower than that is).
        c.others.sawRead(writeStartedAt, clock.now(), this.#cfg.timing.readGapMs);
        this.#stats.count('claim');
        this.#f.maxEra = Math.max(this.#f.maxEra, era);
        logger.info({ node: this.id, era, nonce: written.claim.nonce }, 'claimed leadership');
        const claimed: Candidacy & { phase: 'claimed' } = { ...c, phase: 'claimed', claim: written.claim, raw: written.raw, claimedAt: clock.now(), settle: undefined };
        claimed.settle = clock.setTimer(() => this.#main.poke(), settleMs);
        this.#phase = { role: 'candidate', candidacy: claimed };
        return;
      }
      case 'race-lost':
        return this.#becomeFollower('claim-race-lost');
      case 'failed':
        // Once per change of state, not at every step of a candidacy against a dead store.
        if (!this.#claimFailing) logger.warn({ err: written.error }, 'claim failed');
        this.#claimFailing = true;
        return;
      case 'abandoned':
        return;
    }
  }

  /**
   * Leads from the read that confirmed the claim, and publishes on that same read (by
   * compare-and-set against the claim, as every cycle does against what it read): followers watch
   * the claim and stand again if it stays still, so the first publication goes out without
   * another round trip.
   */
  async #becomeLeader(c: Candidacy & { phase: 'claimed' }, read: LeaderWindowRead): Promise<void> {
    const { clock, kv, logger, operationTimeoutMs } = this.#cfg;
    c.settle?.cancel();
    // Start from the members we followed, without the leader we replace (crashed or resigned).
    const replaced = c.basis?.id;
    const inherited = this.#view.members.list.filter((m) => m.id !== replaced && m.id !== this.#view.leader?.id);
    const inheritedFrom = this.#view.membersFrom;
    const lead: LeaderRole = new LeaderRole({
      config: this.#cfg,
      keys: this.#keys,
      leaderKey: this.#leaderKey,
      stats: this.#stats,
      claim: c.claim,
      raw: c.raw,
      inherited,
      ...(inheritedFrom && { inheritedFrom }),
      onLapse: (reason) => {
        if (this.#isLeading(lead)) this.#report('candidate', reason);
        this.#main.poke();
      },
      onRevalidate: () => {
        if (this.#isLeading(lead)) this.#report('leader', 'revalidated');
      },
      poke: () => this.#main.poke(),
      onBeat: (b) => {
        if (!this.#isLeading(lead)) return;
        this.#f.sawOwn(b, clock.now());
        this.#view.setMembers(b);
      },
    });
    this.#stats.count('elected');
    // The lease runs from the start of the confirming read: shown as `leader` only if it holds now.
    lead.start(read.startedAt);
    this.#setPhase({ role: 'leader', lead }, 'confirmed');
    this.#setLeader(c.claim);
    this.#view.setMembers({ ...c.claim, members: lead.members });
    recordEra(kv, this.#keys.era(), c.claim.era, clock, operationTimeoutMs, logger);
    const release = await lead.hold();
    try {
      await this.#publish(lead, read, read.startedAt);
    } finally {
      release();
    }
  }

  /**
   * Leader: re-read the window (step down when dethroned), then publish. A lease that ran out (the
   * process was paused, the store slow) is re-validated the same way: publications resume, and
   * the lease holds again once two of them R apart at most found nobody better (see LeaderRole).
   */
  async #leaderStep(lead: LeaderRole): Promise<void> {
    const cycleStart = this.#cfg.clock.now();
    if (!lead.holdsLease(cycleStart)) lead.lapse();
    const release = await lead.hold();
    try {
      await this.#leaderCycle(lead, cycleStart);
    } finally {
      release();
    }
  }

  /** One leader cycle, with beats held off (see LeaderRole.hold). */
  async #leaderCycle(lead: LeaderRole, cycleStart: number): Promise<void> {
    const read = await this.#f.read(undefined, 'read', lead.own);
    if (!this.#isLeading(lead)) return;
    this.#absorb(read);
    if (bestBroadcast(read.broadcasts.filter((b) => compareLeadership(b, lead.broadcast) < 0))) return this.#stepDown(lead, 'dethroned');
    return this.#publish(lead, read, cycleStart);
  }

  /** Publishes on `read` (checked for a better leadership), and takes in the outcome. */
  async #publish(lead: LeaderRole, read: LeaderWindowRead, cycleStart: number): Promise<void> {
    const published = await lead.publish(read, cycleStart);
    if (!this.#isLeading(lead)) return;
    // Another write met: read again at once, but once in a row (a stray writer that keeps
    // replacing the value must not make the leader spin at the store's speed).
    if (published.outcome === 'conflict' && !this.#conflicted) this.#main.poke();
    this.#conflicted = published.outcome === 'conflict';
    if (published.outcome !== 'published') return;
    this.#f.sawOwn(published.broadcast, this.#cfg.clock.now());
    this.#broadcastNonce = this.#leaderKey.nonce;
    this.#view.setMembers(published.broadcast);
    // Re-validating: the next cycle, at once, renews the lease.
    if (published.again) this.#main.poke();
  }

  /** Leaves leadership through the one teardown path, and follows. */
  #stepDown(lead: LeaderRole, reason: LeadershipLossReason): void {
    if (!this.#isLeading(lead)) return;
    // Users are told first: code woken by the leadership signal already sees the new role.
    this.#becomeFollower(reason);
    void lead.end(reason);
  }

  #becomeFollower(reason: RoleChangeReason): void {
    this.#quiet();
    this.#joiner.reset();
    this.#f.pongBase = this.#cfg.clock.now();
    this.#setPhase({ role: 'follower' }, reason);
    if (this.#view.leader?.id === this.id) this.#setLeader(undefined);
    this.#main.poke();
  }

  // A step in flight when `destroy()` came finishes its store operation after it: from then on it
  // changes nothing (a destroyed candidate that confirmed would lead with nobody to end it).
  #isCandidacy(c: Candidacy): boolean {
    return this.#phase.role === 'candidate' && this.#phase.candidacy === c && this.#state !== 'stopped';
  }

  #isLeading(lead: LeaderRole): boolean {
    return this.#phase.role === 'leader' && this.#phase.lead === lead && this.#state !== 'stopped';
  }

  // ─── Following ───────────────────────────────────────────────────────────────────────────────

  /** Takes in a read; a follower follows the new best leadership (not a claim, not itself). */
  #absorb(read: LeaderWindowRead): void {
    const best = this.#f.absorb(read, this.#phase.role);
    if (this.#phase.role !== 'leader' && read.best !== undefined && sameLeadership(read.best, this.#f.bestSeen)) {
      const at = read.slots.find((slot) => slot.state === 'broadcast' && slot.broadcast === read.best);
      if (at) this.#broadcastNonce = at.nonce;
    }
    if (best === undefined || this.#phase.role === 'leader') return;
    if (isGoodbye(best)) {
      const leader = this.#view.leader;
      if (leader && sameLeadership(best, { ...leader, version: 0, members: [] })) this.#view.goodbye();
      return this.#setLeader(undefined);
    }
    if (isClaim(best) || best.id === this.id) return;
    this.#setLeader(best);
    this.#view.setMembers(best);
  }

  /**
   * How much longer than T this follower waits before it stands, by its rank after the leader (by
   * id, the same order on every node; see {@link STAND_TIERS}): nothing for the first three, one
   * tier spacing (about an interval, see {@link #tierSpacing}) for the next 27, two for the
   * others. By then the earlier tiers' claims are in the window, and the later members' polls
   * (which scan every nonce once the Version is still) follow a claim instead of standing. So a
   * crash of the leader of N members starts a few candidacies, not N: a claim takes a few store
   * round trips, which a loaded process may stretch past one interval, and thousands of
   * candidates at once would load the store further. Standing later is always safe; a node not
   * listed stands at T.
   */
  #standDelay(): number {
    const rank = this.#view.rankOf(this.id, this.#view.leader?.id);
    if (rank === undefined) return 0;
    const tier = STAND_TIERS.findIndex((bound) => rank < bound);
    return (tier === -1 ? STAND_TIERS.length : tier) * this.#tierSpacing();
  }

  /**
   * The time between two tiers of candidates: one interval, and more when this node's store round
   * trips are long (a loaded process, a slow store), since a claim takes two of them to land (the
   * read, then the compare-and-set) and this node a poll to see it: I + 3 × the average window
   * read, that average counted at most up to the operation timeout.
   */
  #tierSpacing(): number {
    return this.#cfg.timing.tierSpacingMs(this.#f.readEwma);
  }

  #scheduleStaleCheck(): void {
    const { clock, timing } = this.#cfg;
    this.#staleTimer?.cancel();
    this.#staleTimer = undefined;
    if (this.#phase.role !== 'follower' || this.#state !== 'running') return;
    const at = this.#f.standAt(this.#standDelay());
    // Only for precision: the regular step every interval checks as well. A stand due more than
    // 3I from now is left to a later step (which arms the timer then): in steady state the
    // Version moves every interval, and a timer re-armed at every step would be work for nothing.
    const wait = at - clock.now();
    if (wait > 0 && wait <= timing.staleCheckHorizonMs) this.#staleTimer = clock.setTimer(() => this.#main.poke(), wait);
  }

  // ─── Events ──────────────────────────────────────────────────────────────────────────────────

  #setPhase(phase: Phase, reason: RoleChangeReason): void {
    this.#phase = phase;
    const now = this.#cfg.clock.now();
    this.#report(phase.role === 'leader' && !phase.lead.holdsLease(now) ? 'candidate' : phase.role, reason);
  }

  /**
   * Tells users of the role `role` when it is news: `leader` means "may act as leader now", so a
   * leader whose lease lapsed is shown as `candidate` until it is re-validated (see LeaderRole).
   */
  #report(role: Role, reason: RoleChangeReason): void {
    const previous = this.#shown;
    if (previous === role) return;
    this.#shown = role;
    this.#cfg.logger.info({ node: this.id, role, previous, reason }, 'role changed');
    this.#view.role(role, previous, reason);
  }

  /**
   * A lease whose deadline passed lapses now, if its timer has not run yet (a late timer, a
   * resumed process): whatever reads the role, the leadership signal or `isLeader()` at any
   * instant sees them agree with the updates sent.
   */
  #checkLease(): void {
    const phase = this.#phase;
    if (phase.role === 'leader' && this.#shown === 'leader' && !phase.lead.holdsLease(this.#cfg.clock.now())) phase.lead.lapse();
  }

  #setLeader(b: Broadcast | undefined): void {
    // A new leader has not PONGed us yet: its PONG clock starts now, not when we saw its claim.
    if (this.#view.setLeader(b)) this.#f.pongBase = this.#cfg.clock.now();
  }

  // ─── Stopping ────────────────────────────────────────────────────────────────────────────────

  async #stop(): Promise<void> {
    if (this.#state === 'idle') {
      this.#state = 'stopped';
      return this.#finish();
    }
    this.#state = 'stopping';
    this.#quiet();
    await Promise.all([this.#main.stop(), this.#pingTicker.stop()]);
    const phase = this.#phase;
    if (phase.role === 'leader') {
      this.#setPhase({ role: 'follower' }, 'stopped');
      await phase.lead.end('stopped');
    } else if (!this.#cfg.observer) {
      await this.#pinger.leave().catch((error: unknown) => this.#cfg.logger.warn({ err: error }, 'could not leave'));
    }
    this.#state = 'stopped';
    this.#cfg.logger.info({ node: this.id }, 'node stopped');
    this.#finish();
  }

  /** Cancels the precision timers (stale check, candidate's settle). */
  #quiet(): void {
    this.#staleTimer?.cancel();
    const phase = this.#phase;
    if (phase.role === 'candidate' && phase.candidacy.phase === 'claimed') phase.candidacy.settle?.cancel();
  }

  #finish(): void {
    this.#view.stopped();
  }
}

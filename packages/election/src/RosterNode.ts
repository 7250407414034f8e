import { RosterKeys, fencingToken, isClaim, isGoodbye, sameLeadership, type Broadcast, type Member } from '@roster/follower';
import type { CompoundKey } from '@roster/kv-adapter';
import { CandidateRole, type CandidateHost } from './CandidateRole.js';
import type { Candidacy } from './Candidacy.js';
import { settingsOf, type NodeSettings, type ResolvedConfig } from './config.js';
import { recordEra } from './eraRecord.js';
import { NodeStateError } from './errors.js';
import type { LeaderInfo, LeadershipLossReason, Role, RoleChangeReason, RosterUpdate, WatchFunction } from './events.js';
import { FaultLog } from './FaultLog.js';
import { FollowerRole, type FollowerHost } from './FollowerRole.js';
import { Following, Pace, watchRoundTrips, type LeaderWindowRead } from '@roster/follower/internal';
import { LeaderRole, type LeaderHost } from './LeaderRole.js';
import { LeaderWork, type LeaderWorkFunction } from './LeaderWork.js';
import type { NodeState, RosterNode as RosterNodeApi } from './node.js';
import { NodeStats } from './NodeStats.js';
import { NodeView } from './NodeView.js';
import { Ticker } from './Ticker.js';

/** The role with what the node holds in it. */
type Phase =
  | { readonly role: 'follower' | 'observer' }
  | { readonly role: 'candidate'; readonly candidate: CandidateRole }
  | { readonly role: 'leader'; readonly lead: LeaderRole };

/**
 * One member of a Roster group: the era/nonce/version protocol as a state machine.
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
 *              │  dethroned by a better leader, resigned, stopped                              │
 *              └───────────────────────────────────────────────────────────────────────────────┘
 * ```
 *
 * A leader whose lease lapsed (a pause, a slow store) goes on as leader in the protocol (it
 * re-reads and publishes until its re-validated lease holds again, or a better leadership
 * dethrones it), but users are told `candidate` meanwhile: the role shown (`#shown`) is `leader`
 * exactly while the lease holds. The work given to `whileLeader()` ({@link LeaderWork}) runs
 * with each leadership shown, and winds down before a resigned or stopped leader's goodbye.
 *
 * Every transition is in this file; each role's rules are in its own object, which answers with
 * the transition it wants: {@link FollowerRole} (following, PINGs, joining, when to stand),
 * {@link CandidateRole} (claim and confirm), {@link LeaderRole} (lease, publication, members).
 * What the node knows of the leadership, whatever its role, is its {@link Following}.
 */
export class RosterNode implements RosterNodeApi {
  readonly id: string;
  readonly settings: NodeSettings;
  readonly #cfg: ResolvedConfig;
  readonly #keys: RosterKeys;
  readonly #view: NodeView;
  /** The leader key as this node writes it (claims, publications). */
  readonly #leaderKey: CompoundKey;
  readonly #main: Ticker;
  readonly #stats = new NodeStats();
  /** What this node knows of the leadership, in every role. */
  readonly #following: Following;
  readonly #follower: FollowerRole;
  /** Logs a failing claim once per change of state, across candidacies. */
  readonly #claimLog: FaultLog;
  /** What the role objects see of this node. */
  readonly #host: FollowerHost & CandidateHost & LeaderHost;
  /** The functions given to `whileLeader()`, run while this node leads. */
  readonly #work: LeaderWork;
  /** How much this node backs off, from the store round trips it observes (every operation of `#cfg.kv`). */
  readonly #pace: Pace;

  #state: NodeState = 'idle';
  #phase: Phase;
  /**
   * The role users were last told of (the last `role` update). It is the phase's role, except for
   * a leader whose lease does not hold: users see `candidate` until it is re-validated.
   */
  #shown: Role;
  #stopping: Promise<void> | undefined;
  /** A `resign()` in progress (until its goodbye is written). */
  #resigning: Promise<void> | undefined;
  #started: Promise<void> | undefined;
  #firstStep: (() => void) | undefined;
  /** Where the best broadcast was last found (or, leading, written): see `broadcastNonce`. */
  #broadcastNonce: number | undefined;

  /** @internal Use `createNode()`. */
  constructor(resolved: ResolvedConfig) {
    this.#pace = new Pace({ paceRoundTripMs: resolved.timing.paceRoundTripMs, operationTimeoutMs: resolved.operationTimeoutMs });
    const config: ResolvedConfig = { ...resolved, kv: watchRoundTrips(resolved.kv, this.#pace, resolved.clock) };
    this.#cfg = config;
    this.id = config.id;
    this.settings = settingsOf(resolved);
    const { clock, logger } = config;
    // On a store slow as a whole, a timed-out write says nothing of its key: writers stay put.
    const pace = this.#pace;
    this.#keys = new RosterKeys(config.namespace, config.nonceWindow, { timeoutsMove: () => !pace.slow });
    this.#view = new NodeView(logger);
    this.#phase = { role: config.observer ? 'observer' : 'follower' };
    this.#shown = this.#phase.role;
    this.#leaderKey = this.#keys.leader();
    this.#following = Following.forNode(config, this.#keys, this.#stats);
    this.#claimLog = new FaultLog(logger, 'claim failed');
    this.#work = new LeaderWork({ clock, logger, node: config.id });
    const host: FollowerHost & CandidateHost & LeaderHost = {
      config,
      keys: this.#keys,
      stats: this.#stats,
      view: this.#view,
      following: this.#following,
      leaderKey: this.#leaderKey,
      claimLog: this.#claimLog,
      pace: this.#pace,
      role: (): Role => this.#phase.role,
      running: () => this.#state === 'running',
      stopped: () => this.#state === 'stopped',
      broadcastNonce: () => this.#broadcastNonce,
      current: (role: CandidateRole | LeaderRole) => (role instanceof LeaderRole ? this.#isLeading(role) : this.#isCandidacy(role)),
      absorb: (read: LeaderWindowRead) => this.#absorb(read),
      poke: () => this.#main.poke(),
      read: (own) => this.#following.read(undefined, 'read', own),
      leaseChanged: (lead, shown, reason) => {
        if (this.#isLeading(lead)) this.#report(shown, reason);
      },
      published: (lead, b, beat) => {
        if (!this.#isLeading(lead)) return;
        this.#following.sawOwn(b, clock.now());
        if (!beat) this.#broadcastNonce = this.#leaderKey.nonce;
        this.#view.setMembers(b);
      },
      dethroned: (lead) => this.#stepDown(lead, 'dethroned'),
      preempt: (lead, to) => {
        if (this.#isLeading(lead)) void this.#handOver(to);
      },
    };
    this.#host = host;
    this.#follower = new FollowerRole(host);
    this.#main = new Ticker({ clock, periodMs: () => this.#period(), logger, name: 'main', step: () => this.#step() });
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
  pongRoundTrips(): ReadonlyMap<string, number> {
    return this.#phase.role === 'leader' ? this.#phase.lead.pongRoundTrips : new Map();
  }

  get latency(): { readonly windowReadMs: number | undefined; readonly pongRoundTripMs: number | undefined } {
    return { windowReadMs: this.#following.readEwma, pongRoundTripMs: this.#following.pongRoundTripEwma };
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
  once<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): this {
    this.#view.once(type, fn);
    return this;
  }
  off<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): this {
    this.#view.off(type, fn as (update: RosterUpdate) => void);
    return this;
  }
  removeListener<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): this {
    return this.off(type, fn);
  }
  updates(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<RosterUpdate> {
    return this.#view.updates(options.signal);
  }
  whileLeader(fn: LeaderWorkFunction): () => void {
    if (typeof fn !== 'function') throw new TypeError(`election: whileLeader expects a function, got ${typeof fn}`);
    if (this.#state === 'stopped') return () => undefined;
    return this.#work.add(fn);
  }

  resign(): Promise<void> {
    this.#resigning ??= this.#resign().finally(() => (this.#resigning = undefined));
    return this.#resigning;
  }

  start(): Promise<void> {
    if (this.#started) return this.#started;
    if (this.#state !== 'idle') return Promise.reject(new NodeStateError(this.id, 'start', this.#state));
    this.#state = 'running';
    this.#cfg.logger.info({ node: this.id, role: this.#shown }, 'node starting');
    this.#started = new Promise<void>((resolve) => (this.#firstStep = resolve));
    this.#main.start();
    this.#follower.start();
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
    void this.#main.stop();
    void this.#follower.stop();
    const phase = this.#phase;
    if (phase.role === 'candidate') phase.candidate.end();
    if (phase.role === 'leader') {
      this.#setPhase({ role: 'follower' }, 'destroyed');
      void phase.lead.end('destroyed');
    }
    this.#finish();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  // ─── Resigning ───────────────────────────────────────────────────────────────────────────────

  /**
   * Leaves leadership on purpose, and stays a member: users are told (`follower`, reason
   * `resigned`), the leadership signal and the leader's work abort, the work winds down (bounded),
   * then the goodbye makes every follower stand at once. This node stands aside meanwhile and for
   * T after, so that one of them takes over.
   */
  async #resign(): Promise<void> {
    const phase = this.#phase;
    if (this.#state !== 'running' || phase.role !== 'leader') return;
    const { logger, timing } = this.#cfg;
    logger.info({ node: this.id }, 'resigning');
    this.#stats.count('resigned');
    this.#follower.standAside();
    this.#becomeFollower('resigned');
    await phase.lead.end('resigned', () => this.#work.settle(timing.leaderWorkTimeoutMs));
    // Standing aside runs from the goodbye, which the work may have delayed.
    this.#follower.standAside();
  }

  /**
   * Pre-emption: a member of higher priority (`to`) has PINGed this leader for the settle time, so
   * this node resigns in its favour (`resign()`: told first, the work wound down, the goodbye,
   * standing aside for T). Members of lower priority than `to` do not stand on that goodbye (see
   * FollowerRole), so `to` is the one that claims.
   */
  #handOver(to: Member): Promise<void> {
    if (this.#resigning) return this.#resigning;
    this.#cfg.logger.info({ node: this.id, to: to.id, priority: to.priority ?? 0, own: this.#cfg.priority }, 'handing over to a member of higher priority');
    this.#stats.count('preempted');
    return this.resign();
  }

  // ─── The state machine ───────────────────────────────────────────────────────────────────────

  async #step(): Promise<void> {
    try {
      const phase = this.#phase;
      switch (phase.role) {
        case 'follower':
        case 'observer': {
          const stand = await this.#follower.step();
          if (stand !== undefined) this.#becomeCandidate(stand);
          return;
        }
        case 'candidate': {
          const next = await phase.candidate.step();
          if (next === undefined || !this.#isCandidacy(phase.candidate)) return;
          if (next.to === 'follower') return this.#becomeFollower(next.reason);
          return await this.#becomeLeader(next.candidacy, next.read);
        }
        case 'leader':
          return await phase.lead.step();
      }
    } finally {
      this.#firstStep?.();
      this.#firstStep = undefined;
    }
  }

  /**
   * The period of the main loop: the interval, but for a follower and a candidate that has not
   * claimed yet, whose reads back off when the store is slow (`stepPacedMs`, at most 1.5I;
   * `candidateStepMs`, at most T; see the timing table), and for a follower on a healthy store
   * whose leader went silent or whose best leadership is a claim, which polls every I/2
   * (`stillPollMs`, `Following.pollsFast`). A leader, an observer and a claimed candidate keep
   * the interval.
   */
  #period(): number {
    const phase = this.#phase;
    const { intervalMs, timing } = this.#cfg;
    if (phase.role === 'follower') {
      // A Version still for 1.5I: the leader may be gone, and a follower polls at twice the rate to
      // see its successor half an interval sooner (`stillPollMs`; not on a slow store).
      const f = this.#pace.factor;
      return f <= 1 && this.#following.pollsFast(this.#cfg.clock.now()) ? timing.stillPollMs : timing.stepPacedMs(f);
    }
    if (phase.role === 'candidate' && phase.candidate.candidacy.phase === 'unclaimed') return timing.candidateStepMs(this.#pace.factor);
    return intervalMs;
  }

  #becomeCandidate(reason: RoleChangeReason): void {
    this.#follower.stood();
    this.#stats.count('candidacy');
    this.#stats.count(`candidacy.${reason}`);
    this.#setPhase({ role: 'candidate', candidate: new CandidateRole(this.#host, reason === 'unreachable') }, reason);
    this.#main.poke();
  }

  /** Leads from the read that confirmed the claim `c`, starting from the members it followed. */
  async #becomeLeader(c: Candidacy & { phase: 'claimed' }, read: LeaderWindowRead): Promise<void> {
    const { clock, kv, logger, operationTimeoutMs } = this.#cfg;
    c.settle?.cancel();
    // Without the leader we replace (crashed or resigned).
    const inherited = this.#view.members.list.filter((m) => m.id !== c.basis?.id && m.id !== this.#view.leader?.id);
    const inheritedFrom = this.#view.membersFrom;
    const lead = new LeaderRole({ host: this.#host, claim: c.claim, raw: c.raw, inherited, ...(inheritedFrom && { inheritedFrom }) });
    this.#stats.count('elected');
    // The lease runs from the start of the confirming read: shown as `leader` only if it holds now.
    lead.start(read.startedAt);
    this.#setPhase({ role: 'leader', lead }, 'confirmed');
    this.#setLeader(c.claim);
    this.#view.setMembers({ ...c.claim, members: lead.members });
    recordEra(kv, this.#keys.era(), c.claim.era, clock, operationTimeoutMs, logger);
    await lead.begin(read);
  }

  /** Leaves leadership through the one teardown path, and follows. */
  #stepDown(lead: LeaderRole, reason: LeadershipLossReason): void {
    if (!this.#isLeading(lead)) return;
    // Users are told first: code woken by the leadership signal already sees the new role.
    this.#becomeFollower(reason);
    void lead.end(reason);
  }

  #becomeFollower(reason: RoleChangeReason): void {
    const phase = this.#phase;
    if (phase.role === 'candidate') phase.candidate.end();
    this.#follower.followed();
    this.#setPhase({ role: 'follower' }, reason);
    if (this.#view.leader?.id === this.id) this.#setLeader(undefined);
    this.#main.poke();
  }

  // A step in flight when `destroy()` came finishes its store operation after it: from then on it
  // changes nothing (a destroyed candidate that confirmed would lead with nobody to end it).
  #isCandidacy(candidate: CandidateRole): boolean {
    return this.#phase.role === 'candidate' && this.#phase.candidate === candidate && this.#state !== 'stopped';
  }

  #isLeading(lead: LeaderRole): boolean {
    return this.#phase.role === 'leader' && this.#phase.lead === lead && this.#state !== 'stopped';
  }

  /** Takes in a read; a follower follows the new best leadership (not a claim, not itself). */
  #absorb(read: LeaderWindowRead): void {
    const best = this.#following.absorb(read, this.#phase.role, this.#view.leader);
    if (this.#phase.role !== 'leader' && read.best !== undefined && sameLeadership(read.best, this.#following.bestSeen)) {
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
    // The leader's work starts with each leadership users are told of, and stops with its signal.
    const phase = this.#phase;
    if (role === 'leader' && phase.role === 'leader' && this.#state === 'running') {
      // The token of the leadership this role update tells of (its `leader` update may follow it).
      const { era, nonce } = phase.lead.broadcast;
      this.#work.lead({ signal: phase.lead.signal, token: fencingToken({ era, nonce }), era });
    }
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
    if (this.#view.setLeader(b)) this.#following.pongBase = this.#cfg.clock.now();
  }

  // ─── Stopping ────────────────────────────────────────────────────────────────────────────────

  async #stop(): Promise<void> {
    if (this.#state === 'idle') {
      this.#state = 'stopped';
      return this.#finish();
    }
    this.#state = 'stopping';
    const before = this.#phase;
    if (before.role === 'candidate') before.candidate.end();
    await Promise.all([this.#main.stop(), this.#follower.stop()]);
    // A resignation in progress says its goodbye first.
    await this.#resigning;
    const phase = this.#phase;
    const settle = (): Promise<void> => this.#work.settle(this.#cfg.timing.leaderWorkTimeoutMs);
    if (phase.role === 'leader') {
      this.#setPhase({ role: 'follower' }, 'stopped');
      await phase.lead.end('stopped', settle);
    } else {
      // Work aborted earlier (a lapse, a step down) may still be winding down.
      await Promise.all([this.#follower.leave(), settle()]);
    }
    this.#state = 'stopped';
    this.#cfg.logger.info({ node: this.id }, 'node stopped');
    this.#finish();
  }

  #finish(): void {
    this.#view.stopped();
  }
}

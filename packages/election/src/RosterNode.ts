import {
  LeaderWindow,
  Joiner,
  Pinger,
  RosterKeys,
  Staleness,
  Ticker,
  bestBroadcast,
  compareLeadership,
  fencingToken,
  formatBroadcast,
  formatMember,
  isClaim,
  isGoodbye,
  nextVersion,
  sameLeadership,
  sameMembers,
  supersedes,
  type Broadcast,
  type LeaderWindowRead,
  type Member,
} from '@roster/follower';
import { UpdateStream, isKeyFailure, readWindow, withDeadline, writeMoving, type CompoundKey, type Timer } from '@roster/kv-adapter';
import type { ResolvedConfig } from './config.js';
import type { LeaderInfo, Role, RosterUpdate, WatchFunction } from './events.js';
import { JoinPoller } from './JoinPoller.js';
import { Membership } from './Membership.js';
import { PongRound } from './PongRound.js';
import { PongWorker } from './PongWorker.js';
import { NodeStats } from './NodeStats.js';

/** The lifecycle of a node. */
export type NodeState = 'idle' | 'running' | 'stopping' | 'stopped';

/** What a node holds while it is a candidate. */
interface Candidacy {
  /** The best leadership known when the candidacy began. */
  basis: Broadcast | undefined;
  /** The claim written, once written. */
  claim?: Broadcast;
  claimRaw?: string;
  claimedAt?: number;
  /** Progress of the best broadcast other than our claim: we lead only once it is stale. */
  others: Staleness;
  settle?: Timer;
  /** Stood while no nonce of the leader key could be read: any progress seen before claiming ends it. */
  blind?: boolean;
}

/** What a node holds while it leads. */
interface Leadership {
  me: Broadcast;
  raw: string | undefined;
  membership: Membership;
  poller: JoinPoller;
  workers: Map<string, PongWorker>;
  /** The beat the PONG workers share, so that their commands of one interval leave together. */
  round: PongRound;
  joiners: Member[];
  leavers: Set<string>;
  fence: Timer | undefined;
  abort: AbortController;
}

/**
 * One member of a Roster cluster: the era/nonce/version protocol of seed 003 as a state machine.
 * Create it with `createNode()`.
 *
 * ```
 *            start                 Version stale for T, goodbye,            claim is best and
 *              │                   or no PONG for T                          others stale for T
 *              ▼                ┌───────────────────────┐               ┌────────────────────────┐
 *          follower ────────────┘                       ▼               │                        ▼
 *              ▲                                    candidate ──────────┘                      leader
 *              │  claim lost, better leader seen        │                                      │
 *              ├────────────────────────────────────────┘                                      │
 *              │  dethroned by a better leader, or could not publish for the renew deadline    │
 *              └───────────────────────────────────────────────────────────────────────────────┘
 * ```
 *
 * Every transition is in this file; the loops (broadcast reading, PING, the JOIN poller, the PONG
 * workers) are small collaborators it starts and stops.
 */
export class RosterNode {
  /** This node's id. */
  readonly id: string;
  readonly #cfg: ResolvedConfig;
  readonly #keys: RosterKeys;
  readonly #updates: UpdateStream<RosterUpdate>;
  readonly #window: LeaderWindow;
  /** The leader key as this node writes it (claims, publications). */
  readonly #leaderKey: CompoundKey;
  readonly #pinger: Pinger;
  readonly #joiner: Joiner;
  readonly #main: Ticker;
  readonly #pingTicker: Ticker;
  readonly #stats = new NodeStats();

  #state: NodeState = 'idle';
  #role: Role;
  #stopping: Promise<void> | undefined;
  #started: Promise<void> | undefined;
  #firstStep: (() => void) | undefined;

  /** The best leadership ever seen, at the highest version seen; what a follower follows. */
  #bestSeen: Broadcast | undefined;
  readonly #staleness: Staleness;
  #maxEra = 0;
  #leader: LeaderInfo | undefined;
  #members: { version: number; list: readonly Member[] } = { version: 0, list: [] };
  /** The broadcast member array `#members` was built from. */
  #membersSource: readonly Member[] | undefined;
  /** Since when this follower expects PONGs (following a new leader resets it). */
  #pongBase: number;
  /** Whether this follower saw itself in the member list at its last step. */
  #listed = false;
  #staleTimer: Timer | undefined;
  #candidacy: Candidacy | undefined;
  #lead: Leadership | undefined;
  /** While leading: the local time until which this node may call itself leader. */
  #leaseUntil = 0;
  /** The latency sensor's moving averages. */
  #readEwma: number | undefined;
  #rttEwma: number | undefined;

  /** @internal Use `createNode()`. */
  constructor(config: ResolvedConfig) {
    this.#cfg = config;
    this.id = config.id;
    const { kv, clock, logger, intervalMs, operationTimeoutMs } = config;
    this.#keys = new RosterKeys(config.namespace, config.nonceWindow);
    this.#updates = new UpdateStream<RosterUpdate>(logger);
    this.#role = config.observer ? 'observer' : 'follower';
    this.#window = new LeaderWindow({
      kv,
      key: this.#keys.leader(),
      clock,
      logger,
      timeoutMs: operationTimeoutMs,
      // Followers poll one nonce's header; the whole window when the Version went still, or every 5T.
      stillMs: 1.5 * intervalMs,
      scanEveryMs: 5 * config.timeoutMs,
      onGarbage: () => this.#stats.count('garbage'),
    });
    this.#leaderKey = this.#keys.leader();
    this.#pinger = new Pinger({ kv, key: this.#keys.idKey(this.id), clock, opTimeoutMs: operationTimeoutMs });
    this.#joiner = new Joiner({ kv, key: this.#keys.join(), clock, self: { id: this.id, weight: config.weight }, opTimeoutMs: operationTimeoutMs });
    this.#main = new Ticker({ clock, periodMs: intervalMs, logger, name: 'main', step: () => this.#step() });
    this.#pingTicker = new Ticker({ clock, periodMs: intervalMs, logger, name: 'pinger', step: () => this.#pingStep() });
    this.#staleness = new Staleness(clock.now());
    this.#pongBase = clock.now();
  }

  // ─── Public surface ──────────────────────────────────────────────────────────────────────────

  /** The node's role now. */
  get role(): Role {
    return this.#role;
  }

  /** The node's lifecycle state. */
  get state(): NodeState {
    return this.#state;
  }

  /** The leadership this node follows or holds, or `undefined` while it knows of none. */
  get leader(): LeaderInfo | undefined {
    return this.#leader;
  }

  /** The member list this node sees, sorted by id, with the Version it comes from. */
  get members(): { readonly version: number; readonly list: readonly Member[] } {
    return this.#members;
  }

  /** The ids of the members this node sees, sorted. */
  get memberIds(): string[] {
    return this.#members.list.map((m) => m.id);
  }

  /**
   * True while this node leads and its lease has not run out: it published successfully within the
   * renew deadline. Checked against the clock at each call, so it turns false on time even if the
   * process was paused.
   */
  isLeader(): boolean {
    return this.#role === 'leader' && this.#lead !== undefined && this.#cfg.clock.now() < this.#leaseUntil;
  }

  /**
   * While this node leads, a signal that aborts the moment leadership is lost (dethroned, lease
   * expired, stopped); `undefined` otherwise. Give it to the work only a leader may do.
   */
  get leadership(): AbortSignal | undefined {
    return this.#lead?.abort.signal;
  }

  /**
   * The latency sensor (seed 001): a moving average of how long a read of the leader-key window
   * takes, and of the PING → PONG round trip through the store and the leader (followers only).
   * `undefined` until measured.
   */
  get latency(): { readonly windowReadMs: number | undefined; readonly pongRoundTripMs: number | undefined } {
    return { windowReadMs: this.#readEwma, pongRoundTripMs: this.#rttEwma };
  }


  /** Counters of what the node did: KV reads and writes by purpose, garbage seen, elections. */
  get stats(): Readonly<Record<string, number>> {
    return this.#stats.snapshot();
  }

  /** Installs a watch function (seed 000) called with every update; returns the unsubscribe function. */
  watch(fn: WatchFunction): () => void {
    return this.#updates.watch(fn);
  }

  /** Calls `fn` with every update of one type; returns the unsubscribe function. */
  on<T extends RosterUpdate['type']>(type: T, fn: (update: Extract<RosterUpdate, { type: T }>) => void): () => void {
    return this.#updates.watch((u) => {
      if (u.type === type) fn(u as Extract<RosterUpdate, { type: T }>);
    });
  }

  /** An async iterator over the updates from now on; ends when the node stops or `signal` aborts. */
  updates(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<RosterUpdate> {
    return this.#updates.iterate(options.signal);
  }

  /**
   * Starts the node as a follower (or observer). Resolves once the first read of the leader key is
   * done, so `leader` and `members` reflect the cluster. Calling it again returns the same promise.
   */
  start(): Promise<void> {
    if (this.#started) return this.#started;
    if (this.#state !== 'idle') return Promise.reject(new Error(`roster: node ${this.id} cannot start: it is ${this.#state}`));
    this.#state = 'running';
    this.#cfg.logger.info({ node: this.id, role: this.#role }, 'node starting');
    this.#started = new Promise<void>((resolve) => (this.#firstStep = resolve));
    this.#main.start();
    if (!this.#cfg.observer) this.#pingTicker.start();
    return this.#started;
  }

  /**
   * Stops gracefully: a leader publishes a goodbye so that followers elect at once; a follower
   * writes `LEAVE` so that the leader removes it at once. Idempotent; the goodbye or leave is
   * bounded by one operation timeout.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /**
   * Stops at once, without goodbye or leave: to the cluster this is a crash (the leader is replaced
   * after the timeout, a follower removed after the timeout). Local leadership ends at once.
   */
  destroy(): void {
    if (this.#state === 'stopped') return;
    this.#state = 'stopped';
    this.#stopping ??= Promise.resolve();
    this.#staleTimer?.cancel();
    this.#candidacy?.settle?.cancel();
    void this.#main.stop();
    void this.#pingTicker.stop();
    const lead = this.#lead;
    if (lead) {
      this.#lead = undefined;
      lead.fence?.cancel();
      lead.abort.abort(new Error('roster: leadership lost (destroyed)'));
      void lead.poller.stop();
      for (const w of lead.workers.values()) void w.stop();
      this.#setRole('follower', 'destroyed');
    }
    this.#updates.emit({ type: 'stopped' });
    this.#updates.close();
  }

  /** Stops the node (see {@link stop}). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  // ─── The state machine ───────────────────────────────────────────────────────────────────────

  async #step(): Promise<void> {
    try {
      switch (this.#role) {
        case 'follower':
        case 'observer':
          return await this.#followerStep();
        case 'candidate':
          return await this.#candidateStep();
        case 'leader':
          return await this.#leaderStep();
      }
    } finally {
      this.#firstStep?.();
      this.#firstStep = undefined;
    }
  }

  /** Follower: read the broadcast, follow it, and decide whether to stand. */
  async #followerStep(): Promise<void> {
    const read = await this.#readWindow();
    if (this.#role !== 'follower' && this.#role !== 'observer') return;
    this.#absorb(read);
    this.#scheduleStaleCheck();
    if (this.#role === 'observer') return;
    const now = this.#cfg.clock.now();
    // Whatever the reason nothing new was seen for T (even no nonce readable), stand: the claim
    // goes to the lowest nonce that can be written, and progress seen first ends the candidacy.
    if (!read.reachable) {
      if (this.#staleness.isStale(now, this.#cfg.timeoutMs)) this.#becomeCandidate('unreachable');
      return;
    }
    if (this.#staleness.isStale(now, this.#cfg.timeoutMs)) {
      return this.#becomeCandidate(this.#bestSeen && isGoodbye(this.#bestSeen) ? 'goodbye' : 'stale');
    }
    const listed = this.#leader !== undefined && this.#members.list.some((m) => m.id === this.id);
    if (listed && !this.#listed) this.#pongBase = now;
    this.#listed = listed;
    // The PONG path applies only while the leader we follow is the best we know: during an
    // election (a claim is the best) we wait for it to confirm or go still, or claims would keep
    // overtaking one another.
    const following = this.#leader !== undefined && sameLeadership(this.#bestSeen, { ...this.#leader, version: 0, members: [] });
    if (listed && following && now - this.#pongBase >= this.#cfg.timeoutMs) return this.#becomeCandidate('pong-timeout');
    if (this.#leader !== undefined && !listed && this.#joiner.due(Math.max(this.#cfg.timeoutMs, 3 * this.#cfg.intervalMs))) {
      await this.#joiner.append().then(
        () => this.#stats.count('join.append'),
        (error: unknown) => this.#cfg.logger.warn({ err: error }, 'could not append to the join key'),
      );
    }
  }

  async #pingStep(): Promise<void> {
    if (this.#role === 'leader' || this.#state !== 'running') return;
    await this.#pinger.step().then(
      () => {
        this.#stats.count('ping');
        const pong = this.#pinger.lastPongAt;
        if (pong !== undefined && pong > this.#pongBase) {
          this.#pongBase = pong;
          if (this.#pinger.lastRttMs !== undefined) this.#rttEwma = ewma(this.#rttEwma, this.#pinger.lastRttMs);
        }
      },
      (error: unknown) => this.#cfg.logger.debug({ err: error }, 'PING failed'),
    );
  }

  #becomeCandidate(reason: string): void {
    this.#stats.count('candidacy');
    this.#candidacy = { basis: this.#bestSeen, others: this.#staleness.clone(), blind: reason === 'unreachable' };
    this.#setRole('candidate', reason);
    this.#main.poke();
  }

  /**
   * Candidate: claim `max era seen + 1` at the lowest leader-key nonce we can write, then after the
   * settle time re-read: lead when our claim is the best and every other broadcast has been still
   * for T (its leader, if alive, has fenced itself); follow a better one; give up after T.
   */
  async #candidateStep(): Promise<void> {
    const c = this.#candidacy!;
    const { clock, timeoutMs, intervalMs, settleMs } = this.#cfg;
    const read = await this.#readWindow();
    if (this.#role !== 'candidate' || this.#candidacy !== c) return;
    this.#absorb(read);
    const others = bestBroadcast(read.broadcasts.filter((b) => !sameLeadership(b, c.claim)));
    if (others && supersedes(others, c.others.tracked)) c.others.observe(others, read.at);

    if (c.claim === undefined) {
      if (others && (c.basis === undefined || compareLeadership(others, c.basis) < 0)) return this.#becomeFollower('better-leader-seen');
      if (c.blind && read.reachable && !c.others.isStale(clock.now(), timeoutMs)) return this.#becomeFollower('leader-alive');
      return this.#claim(c, read);
    }
    if (others && compareLeadership(others, c.claim) < 0) return this.#becomeFollower('better-leader-seen');
    if (!read.broadcasts.some((b) => sameLeadership(b, c.claim))) {
      if (read.slots[c.claim.nonce]?.state === 'unavailable') return; // cannot see our claim; wait
      return this.#becomeFollower('claim-lost');
    }
    const now = clock.now();
    if (now - c.claimedAt! < settleMs) return;
    if (c.others.isStale(now, timeoutMs)) return this.#becomeLeader(c, read);
    if (now - c.claimedAt! > timeoutMs + intervalMs) return this.#becomeFollower('claim-unconfirmed');
    c.settle?.cancel();
    c.settle = clock.setTimer(() => this.#main.poke(), Math.max(0, c.others.staleAt(timeoutMs) - now));
  }

  async #claim(c: Candidacy, read: LeaderWindowRead): Promise<void> {
    const { clock, settleMs, operationTimeoutMs, weight } = this.#cfg;
    this.#maxEra = Math.max(this.#maxEra, await this.#readEraRecord());
    if (this.#role !== 'candidate' || this.#candidacy !== c) return;
    const era = this.#maxEra + 1;
    for (const slot of read.slots) {
      if (slot.state === 'unavailable') continue;
      const claim: Broadcast = { era, nonce: slot.nonce, version: 0, id: this.id, members: [{ id: this.id, weight }] };
      const raw = formatBroadcast(claim);
      const expected = slot.state === 'empty' ? null : slot.raw;
      try {
        const swapped = await withDeadline(clock, operationTimeoutMs, 'claim', this.#write(this.#leaderKey.at(slot.nonce), expected, raw));
        if (this.#role !== 'candidate' || this.#candidacy !== c) return;
        if (!swapped) return this.#becomeFollower('claim-race-lost');
        this.#stats.count('claim');
        this.#leaderKey.moveTo(slot.nonce);
        this.#maxEra = Math.max(this.#maxEra, era);
        c.claim = claim;
        c.claimRaw = raw;
        c.claimedAt = clock.now();
        this.#cfg.logger.info({ node: this.id, era, nonce: slot.nonce }, 'claimed leadership');
        c.settle = clock.setTimer(() => this.#main.poke(), settleMs);
        return;
      } catch (error) {
        if (isKeyFailure(error)) continue;
        this.#cfg.logger.warn({ err: error }, 'claim failed');
        return;
      }
    }
  }

  #becomeLeader(c: Candidacy, read: LeaderWindowRead): void {
    const { clock, kv, logger, intervalMs, operationTimeoutMs } = this.#cfg;
    c.settle?.cancel();
    this.#candidacy = undefined;
    const claim = c.claim!;
    // Start from the members we followed, without the leader we replace (crashed or resigned).
    const replaced = c.basis?.id;
    const inherited = this.#members.list.filter((m) => m.id !== replaced && m.id !== this.#leader?.id);
    const membership = new Membership({ id: this.id, weight: this.#cfg.weight }, clock.now(), inherited);
    const lead: Leadership = {
      me: claim,
      raw: c.claimRaw,
      membership,
      poller: new JoinPoller({
        kv,
        key: this.#keys.join(),
        clock,
        logger,
        intervalMs,
        opTimeoutMs: operationTimeoutMs,
        onJoin: (ms) => {
          lead.joiners.push(...ms);
        },
        onGarbage: () => this.#stats.count('garbage'),
      }),
      workers: new Map(),
      round: new PongRound({ clock, intervalMs, logger }),
      joiners: [],
      leavers: new Set(),
      fence: undefined,
      abort: new AbortController(),
    };
    this.#lead = lead;
    this.#stats.count('elected');
    this.#renewLease(lead, read.startedAt);
    this.#setRole('leader', 'confirmed');
    this.#setLeader(claim);
    this.#setMembers({ ...claim, members: membership.list() });
    this.#syncWorkers(lead);
    lead.poller.start();
    this.#recordEra(claim.era);
    this.#main.poke();
  }

  /** The highest era in the era key's window (0 when none can be read). Never rejects. */
  async #readEraRecord(): Promise<number> {
    const { kv, clock, operationTimeoutMs } = this.#cfg;
    const slots = await readWindow(kv, this.#keys.era(), { deadline: { clock, ms: operationTimeoutMs } });
    let max = 0;
    for (const slot of slots) {
      if (!slot.ok || slot.value === null) continue;
      if (/^[1-9]\d{0,15}$/.test(slot.value) && Number.isSafeInteger(Number(slot.value))) max = Math.max(max, Number(slot.value));
      else this.#stats.count('garbage');
    }
    return max;
  }

  /** Records a new leader's era at the era key (best effort). */
  #recordEra(era: number): void {
    const { kv, clock, operationTimeoutMs } = this.#cfg;
    void writeMoving(this.#keys.era(), (k) => withDeadline(clock, operationTimeoutMs, 'era write', kv.set(k, String(era)))).catch(
      (error: unknown) => this.#cfg.logger.debug({ err: error }, 'could not record the era'),
    );
  }

  /**
   * Leader: re-read the window (stop when dethroned), admit joiners, drop the silent, bump Version
   * and publish with compare-and-set against what was just read, so that a claim written in
   * between is never overwritten.
   */
  async #leaderStep(): Promise<void> {
    const lead = this.#lead!;
    const { clock, timeoutMs, operationTimeoutMs } = this.#cfg;
    const cycleStart = clock.now();
    // A lease that ran out while the process was paused (its fence timer could not fire) is not renewed.
    if (cycleStart >= this.#leaseUntil) return this.#stepDown('lease-expired');
    const read = await this.#readWindow();
    if (this.#lead !== lead) return;
    this.#absorb(read);
    const better = bestBroadcast(read.broadcasts.filter((b) => compareLeadership(b, lead.me) < 0));
    if (better) return this.#stepDown('dethroned', better);
    if (!read.reachable) return;

    const now = clock.now();
    lead.membership.admit(lead.joiners.splice(0), now);
    for (const id of lead.leavers) lead.membership.remove(id);
    lead.leavers.clear();
    lead.membership.dropSilent(now, timeoutMs);
    const members = lead.membership.list();
    const next: Broadcast = { ...lead.me, version: nextVersion(lead.me.version, !sameMembers(lead.me.members, members)), members };
    const raw = formatBroadcast(next);

    for (let attempt = 0; attempt < this.#leaderKey.window; attempt++) {
      const slot = read.slots[this.#leaderKey.nonce]!;
      if (slot.state === 'unavailable') {
        this.#leaderKey.advance();
        continue;
      }
      const expected = slot.state === 'empty' ? null : slot.raw;
      try {
        const swapped = await withDeadline(clock, operationTimeoutMs, 'publish', this.#write(this.#leaderKey.current, expected, raw));
        if (this.#lead !== lead) return;
        if (!swapped) {
          this.#stats.count('publish.conflict');
          this.#main.poke();
          return;
        }
        // A publication that lands after the lease ran out (a pause, a slow store) does not revive it.
        if (clock.now() >= this.#leaseUntil) return this.#stepDown('lease-expired');
        this.#stats.count('publish');
        lead.me = next;
        lead.raw = raw;
        this.#renewLease(lead, cycleStart);
        this.#staleness.observe(next, clock.now());
        this.#bestSeen = next;
        this.#setMembers(next);
        this.#syncWorkers(lead);
        return;
      } catch (error) {
        if (this.#lead !== lead) return;
        if (!isKeyFailure(error)) {
          this.#cfg.logger.warn({ err: error }, 'publish failed');
          return;
        }
        this.#leaderKey.advance();
      }
    }
  }

  #renewLease(lead: Leadership, cycleStart: number): void {
    const { clock, renewDeadlineMs } = this.#cfg;
    lead.fence?.cancel();
    this.#leaseUntil = cycleStart + renewDeadlineMs;
    lead.fence = clock.setTimer(() => {
      if (this.#lead === lead) void this.#stepDown('lease-expired');
    }, Math.max(0, this.#leaseUntil - clock.now()));
  }


  /** Starts a PONG worker for every follower, stops those of members gone. */
  #syncWorkers(lead: Leadership): void {
    const { kv, clock, logger, intervalMs, timeoutMs, operationTimeoutMs } = this.#cfg;
    const ids = new Set(lead.membership.followerIds());
    for (const [id, worker] of lead.workers) {
      if (!ids.has(id)) {
        void worker.stop();
        lead.workers.delete(id);
      }
    }
    for (const id of ids) {
      if (lead.workers.has(id)) continue;
      const worker = new PongWorker({
        kv,
        key: this.#keys.idKey(id),
        clock,
        logger,
        intervalMs,
        timeoutMs,
        opTimeoutMs: operationTimeoutMs,
        round: lead.round,
        onPing: () => {
          this.#stats.count('pong');
          lead.membership.pinged(id, clock.now());
        },
        onLeave: () => {
          if (this.#lead !== lead || !lead.membership.has(id)) return;
          lead.leavers.add(id);
          this.#main.poke();
        },
      });
      lead.workers.set(id, worker);
      worker.start();
    }
  }

  /** Leaves leadership: abort the leader's work, stop its loops; hand the members to a better leader. */
  #stepDown(reason: string, better?: Broadcast): void {
    const lead = this.#lead;
    if (!lead) return;
    this.#lead = undefined;
    lead.fence?.cancel();
    lead.abort.abort(new Error(`roster: leadership lost (${reason})`));
    void lead.poller.stop();
    for (const w of lead.workers.values()) void w.stop();
    this.#cfg.logger.info({ node: this.id, reason, era: lead.me.era }, 'stopped leading');
    if (reason === 'dethroned' && better) this.#handOver(lead);
    this.#becomeFollower(reason);
  }

  /**
   * Leadership consolidation (seed 000): a dethroned leader hands its member list to the winner by
   * appending it to the join key, so that its members are admitted at once instead of each
   * rejoining after the timeout. Best effort.
   */
  #handOver(lead: Leadership): void {
    const tokens = lead.membership.list().map((m) => ` ${formatMember(m)}`).join('');
    const { kv, clock, operationTimeoutMs } = this.#cfg;
    const join = this.#keys.join();
    void withDeadline(clock, operationTimeoutMs, 'hand-over', kv.append(join.current, tokens)).catch(() => undefined);
  }

  #becomeFollower(reason: string): void {
    const c = this.#candidacy;
    c?.settle?.cancel();
    this.#candidacy = undefined;
    this.#joiner.reset();
    this.#pongBase = this.#cfg.clock.now();
    this.#setRole('follower', reason);
    if (this.#leader?.id === this.id) this.#setLeader(undefined);
    this.#main.poke();
  }

  // ─── Following ───────────────────────────────────────────────────────────────────────────────

  async #readWindow(): Promise<LeaderWindowRead> {
    this.#stats.count('leader.read');
    const following = this.#role === 'follower' || this.#role === 'observer';
    const read = following ? await this.#window.poll() : await this.#window.read();
    this.#readEwma = ewma(this.#readEwma, read.at - read.startedAt);
    // Reads come every interval; a longer gap means we were not looking (see Staleness.sawRead).
    const maxGap = 2 * this.#cfg.intervalMs;
    this.#staleness.sawRead(read.startedAt, read.at, maxGap);
    this.#candidacy?.others.sawRead(read.startedAt, read.at, maxGap);
    return read;
  }

  /**
   * Takes in what a read of the leader window saw: the highest era, the best leadership (which
   * never goes back to a worse one), its progress, and, for a follower, the leader and members.
   */
  #absorb(read: LeaderWindowRead): void {
    for (const b of read.broadcasts) this.#maxEra = Math.max(this.#maxEra, b.era);
    const best = read.best;
    if (best === undefined) return;
    const prev = this.#bestSeen;
    // A follower whose remembered leadership went still stands for election, with a higher era.
    // An observer never stands: it moves on to what the store shows now, even a worse leadership
    // (after the store lost its data, the better one may exist nowhere any more).
    const moveOn = this.#role === 'observer' && !sameLeadership(best, prev) && this.#staleness.isStale(read.at, this.#cfg.timeoutMs);
    if (!supersedes(best, prev) && !moveOn) return;
    this.#bestSeen = best;
    this.#staleness.observe(best, read.at);
    if (this.#role === 'leader') return;
    if (isGoodbye(best)) {
      if (this.#leader && sameLeadership(best, { ...this.#leader, version: 0, members: [] })) {
        this.#updates.emit({ type: 'goodbye', leader: this.#leader });
      }
      this.#setLeader(undefined);
      return;
    }
    if (isClaim(best) || best.id === this.id) return;
    this.#setLeader(best);
    this.#setMembers(best);
  }

  #scheduleStaleCheck(): void {
    const { clock, timeoutMs } = this.#cfg;
    this.#staleTimer?.cancel();
    if (this.#role !== 'follower' || this.#state !== 'running') return;
    const at = Math.min(this.#staleness.staleAt(timeoutMs), this.#listed ? this.#pongBase + timeoutMs : Infinity);
    // Only for precision: the regular step every interval checks as well.
    if (at > clock.now() && at !== Infinity) this.#staleTimer = clock.setTimer(() => this.#main.poke(), at - clock.now());
  }

  // ─── Events ──────────────────────────────────────────────────────────────────────────────────

  #setRole(role: Role, reason: string): void {
    const previous = this.#role;
    if (previous === role) return;
    this.#role = role;
    this.#cfg.logger.info({ node: this.id, role, previous, reason }, 'role changed');
    this.#updates.emit({ type: 'role', role, previous, reason });
  }

  #setLeader(b: Broadcast | undefined): void {
    const previous = this.#leader;
    if (b === undefined ? previous === undefined : previous !== undefined && previous.id === b.id && previous.era === b.era && previous.nonce === b.nonce) return;
    this.#leader = b && { id: b.id, era: b.era, nonce: b.nonce, token: fencingToken(b) };
    // A new leader has not PONGed us yet: its PONG clock starts now, not when we saw its claim.
    this.#pongBase = this.#cfg.clock.now();
    this.#updates.emit({ type: 'leader', leader: this.#leader, previous });
  }

  #setMembers(b: Broadcast): void {
    // A poll that saw only the Version move hands back the same member array: nothing to compare.
    if (b.members === this.#membersSource) {
      this.#members = { version: b.version, list: this.#members.list };
      return;
    }
    this.#membersSource = b.members;
    const list = [...b.members].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const prev = this.#members.list;
    const same = prev.length === list.length && prev.every((m, i) => m.id === list[i]!.id && m.weight === list[i]!.weight);
    this.#members = { version: b.version, list };
    if (same) return;
    const before = new Set(prev.map((m) => m.id));
    const after = new Set(list.map((m) => m.id));
    this.#updates.emit({
      type: 'members',
      version: b.version,
      members: list,
      added: [...after].filter((id) => !before.has(id)),
      removed: [...before].filter((id) => !after.has(id)),
    });
  }

  // ─── Store access ────────────────────────────────────────────────────────────────────────────

  /** Writes with compare-and-set when the store has it (a plain set otherwise); true when written. */
  async #write(key: string, expected: string | null, value: string): Promise<boolean> {
    const { kv } = this.#cfg;
    if (kv.capabilities.compareAndSet) return (await kv.compareAndSet(key, expected, value)).swapped;
    await kv.set(key, value);
    return true;
  }

  // ─── Stopping ────────────────────────────────────────────────────────────────────────────────

  async #stop(): Promise<void> {
    if (this.#state === 'idle') {
      this.#state = 'stopped';
      this.#updates.emit({ type: 'stopped' });
      this.#updates.close();
      return;
    }
    this.#state = 'stopping';
    const { clock, operationTimeoutMs, logger } = this.#cfg;
    this.#staleTimer?.cancel();
    this.#candidacy?.settle?.cancel();
    await Promise.all([this.#main.stop(), this.#pingTicker.stop()]);
    const lead = this.#lead;
    if (lead) {
      this.#lead = undefined;
      lead.fence?.cancel();
      lead.abort.abort(new Error('roster: leadership lost (stopped)'));
      await Promise.all([lead.poller.stop(), ...[...lead.workers.values()].map((w) => w.stop())]);
      this.#setRole('follower', 'stopped');
      const goodbye: Broadcast = { ...lead.me, version: lead.me.version + 1, members: [] };
      await withDeadline(clock, operationTimeoutMs, 'goodbye', this.#write(this.#leaderKey.current, lead.raw ?? null, formatBroadcast(goodbye)))
        .then((ok) => logger.info({ node: this.id, written: ok }, 'said goodbye'))
        .catch((error: unknown) => logger.warn({ err: error }, 'could not say goodbye'));
    } else if (!this.#cfg.observer) {
      await this.#pinger.leave().catch((error: unknown) => logger.warn({ err: error }, 'could not leave'));
    }
    this.#state = 'stopped';
    logger.info({ node: this.id }, 'node stopped');
    this.#updates.emit({ type: 'stopped' });
    this.#updates.close();
  }
}

/** An exponentially weighted moving average with weight 1/8 for the new sample. */
function ewma(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + (sample - previous) / 8;
}

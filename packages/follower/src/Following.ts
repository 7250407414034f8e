import type { Clock, KV, Logger } from '@roster/kv-adapter';
import { compareLeadership, isClaim, isGoodbye, sameLeadership, type Broadcast, type BroadcastHeader } from './broadcast.js';
import type { FollowerTiming } from './FollowerTiming.js';
import type { RosterKeys } from './keys.js';
import { LeaderWindow } from './LeaderWindow.js';
import { NOT_READ, readEveryNonce, type LeaderWindowRead, type OwnPublication } from './LeaderRead.js';
import type { ListCache } from './listStep.js';
import { Rivals } from './Rivals.js';
import { Staleness } from './Staleness.js';
import { supersedes } from './versions.js';

/** What {@link Following.forNode} needs of a node's settings (`@roster/election`'s resolved options). */
export interface FollowingSettings {
  readonly kv: KV;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Longest one store command may take before it counts as failed. */
  readonly operationTimeoutMs: number;
  readonly timing: FollowerTiming;
  /** Member lists shared with the other nodes of the process (see `ListCache`). */
  readonly listCache?: ListCache;
}

/** Where a node counts what it did, by name (`@roster/election`'s `NodeStats`). */
export interface Counters {
  count(name: string): void;
}

/** A node's role in the protocol, as `@roster/election` names it (its `Role`). */
export type NodeRole = 'follower' | 'candidate' | 'leader' | 'observer';

/**
 * What a node knows of the leadership from its reads of the leader window and its PINGs: the best
 * leadership seen (which never goes back to a worse one) and its progress, the highest era, when
 * the leader last PONGed, and the latency sensor. The follower's rule for standing is {@link standReason}.
 */
export class Following {
  readonly #window: LeaderWindow;
  readonly #timing: FollowerTiming;
  readonly #stats: Counters;
  /** The best leadership ever seen, at the highest version seen. */
  bestSeen: Broadcast | undefined;
  readonly staleness: Staleness;
  /** Every leadership found in the window, each watched for progress (a candidate confirms once all are still). */
  readonly rivals: Rivals;
  maxEra = 0;
  /** Since when this follower expects PONGs (following a new leader resets it). */
  pongBase: number;
  /** Whether this follower saw itself in the member list at its last step. */
  #listed = false;
  /**
   * The broadcast tracked for stillness when a read last failed where the leader followed may be
   * publishing (see `missedWhereItMayBe`): while it is still the one tracked, this follower has not
   * looked there since the Version last moved (see {@link standReason}).
   */
  #unreadWhileTracking: Broadcast | undefined;
  /** Whether such a read ever happened (see `#unreadWhileTracking`). */
  #sawUnread = false;
  /** The nonces whose last read by this node was tried and failed (a poll's nonces not read are not tried). */
  readonly #failing = new Set<number>();
  /**
   * A nonce newly failed (see {@link #lookAgainAfter}): stillness is no evidence for a stand until a
   * read that started at or after this local time has completed.
   */
  #blindUntil = Number.NEGATIVE_INFINITY;
  /** Local time at which this node's last read started. */
  #lastReadStartedAt = Number.NEGATIVE_INFINITY;
  /** Whether this node's last read reached the store (see {@link pollsFast}). */
  #lastReachable = false;
  /** How long after a read that found a nonce newly failed this node must read again (see {@link #lookAgainAfter}). */
  readonly #newlyFailedMs: number;
  /**
   * The nonce of the leader key where the best leadership's latest copy was last found (a leader
   * that moved leaves older copies behind; a broadcast's own nonce is its claim's, not where it
   * is stored).
   */
  #copyAt: number | undefined;
  /** Local time at which a PONG was last found at this follower's id key. */
  #lastPongAt: number | undefined;
  /** Local time at which the last PING that reached the store completed. */
  #lastPingAt: number | undefined;
  /** Whether the follower followed the best leadership known at its last step. */
  #following = false;
  /** See {@link mustReadEveryNonce}. */
  #claimUnfound = false;
  readEwma: number | undefined;
  pongRoundTripEwma: number | undefined;

  /**
   * A node's knowledge, reading the window of `keys`' leader key: followers poll one nonce's
   * header, and the whole window when the Version went still, or every `scanEveryMs`; a new list
   * is built from the steps the leader writes beside the broadcast when possible.
   */
  static forNode(config: FollowingSettings, keys: RosterKeys, stats: Counters): Following {
    const { kv, clock, logger, operationTimeoutMs, timing, listCache } = config;
    const window = new LeaderWindow({
      kv,
      key: keys.leader(),
      clock,
      logger,
      opTimeoutMs: operationTimeoutMs,
      stillMs: timing.stillMs,
      scanEveryMs: timing.scanEveryMs,
      stillScanMs: timing.stillScanMs,
      listStepBudgetMs: timing.listStepBudgetMs,
      onGarbage: () => stats.count('garbage'),
      stepKey: (to) => keys.listStep(to),
      ...(listCache && { lists: listCache }),
      onList: (how) => stats.count(`list.${how}`),
    });
    return new Following(window, clock, timing, stats, operationTimeoutMs);
  }

  /**
   * `opTimeoutMs` (τ) sizes the wait after a nonce newly fails (see {@link standReason}); without
   * it, one interval (I, the read gap's half) stands for it, the largest τ allowed.
   */
  constructor(window: LeaderWindow, clock: Clock, timing: FollowerTiming, stats: Counters, opTimeoutMs = timing.readGapMs / 2) {
    this.#window = window;
    this.#timing = timing;
    this.#stats = stats;
    // A leader at the nonce that failed moves to the next one at its next publication, within I of
    // the failure, once its read and its compare-and-set (2τ) are done (see #lookAgainAfter).
    this.#newlyFailedMs = timing.readGapMs / 2 + 2 * opTimeoutMs;
    // A claim's candidate confirms up to T + I after claiming and publishes within an operation
    // after: a claim counts as still only after T + 2I (see Staleness).
    this.staleness = new Staleness(clock.now(), timing.claimGraceMs);
    this.rivals = new Rivals(timing.timeoutMs, timing.claimGraceMs);
    this.pongBase = clock.now();
  }

  /**
   * Reads the leader window; `others` (a candidate's) also learns whether the reader was looking.
   * A follower `poll`s instead: one header at the nonce where the leader was last found, the whole
   * window only when needed (see `LeaderWindow.poll`). A leader passes its `own` last publication:
   * it reads every nonce's header and the whole value only where it needs it (`LeaderWindow.check`).
   * `stillScanMs`: how often a poll of a still Version scans every nonce, when not the timing's
   * `stillScanMs` (a follower backing off on a slow store passes a longer one).
   */
  async read(others?: Staleness, mode: 'read' | 'poll' | 'peek' = 'read', own?: OwnPublication, stillScanMs?: number): Promise<LeaderWindowRead> {
    this.#stats.count('leader.read');
    const read = mode === 'poll' || mode === 'peek' ? await this.#window.poll(undefined, mode === 'peek', stillScanMs) : own !== undefined ? await this.#window.check(own) : await this.#window.read();
    this.readEwma = ewma(this.readEwma, read.at - read.startedAt);
    this.#lastReachable = read.reachable;
    // Reads come every interval; a longer gap means we were not looking (see Staleness.sawRead).
    const maxGap = this.#timing.readGapMs;
    // The same holds for PONGs: silence while the node was not looking (a gap between reads, or a
    // read that itself took longer) is no evidence that the leader stopped answering.
    const blind = this.staleness.sawRead(read.startedAt, read.at, maxGap, read.reachable, this.#timing.slowReadMs);
    if (blind) this.pongBase = Math.max(this.pongBase, read.at);
    // A candidate's view of the others keeps timing from the start of a read: it only confirms a
    // claim already made, on stillness seen by reads that reached the store (Staleness.isSeenStill).
    others?.sawRead(read.startedAt, read.at, maxGap, read.reachable);
    // Every leadership's stillness is judged as the best one's is: by a candidate's rule while
    // this node stands (`others`), by a follower's otherwise.
    this.rivals.saw(read, maxGap, others ? maxGap : this.#timing.slowReadMs);
    // The leader followed published a new list that could not be read whole: its Version moved,
    // which is what staleness watches (the list itself is read at the next poll).
    const moving = read.moving;
    // A candidate's view of the others too: a leader it compares with, seen publishing by its
    // header only (its new list could not be read in time), is not still.
    const theirs = others?.tracked;
    if (moving && theirs && sameLeadership(theirs, { ...moving, members: [] }) && moving.version > theirs.version) others!.observe({ ...theirs, version: moving.version }, read.startedAt);
    this.#copyAt = copyNonce(this.bestSeen, read) ?? this.#copyAt;
    if (missedWhereItMayBe(this.#copyAt, read)) {
      this.#unreadWhileTracking = this.staleness.tracked;
      this.#sawUnread = true;
    } else if (this.#sawUnread && lookedWhereItMayBe(this.#copyAt, read)) {
      // Looked there again, and nothing newer there moved the Version (see `observe` below): what
      // was unknown is known still. PONGs no longer stand in for it: they may come from another
      // leader, which listed this node when it joined (after the store lost its data, one of the
      // same era and nonce, which ranks below the dead one followed by its id).
      this.#sawUnread = false;
    }
    this.#lookAgainAfter(read);
    const tracked = this.staleness.tracked;
    if (moving && sameLeadership(tracked, { ...moving, members: [] }) && moving.version > tracked!.version) {
      this.staleness.observe({ ...tracked!, version: moving.version }, read.startedAt);
    } else if (moving && supersedes({ ...moving, members: [] }, tracked) && (read.best === undefined || supersedes({ ...moving, members: [] }, read.best))) {
      // A better leadership seen by its header only (a claim, a new leader's first list: on a
      // loaded node or store, the read of its value failed), or, to a reader that knows nothing
      // yet, a leader's header (a thousand nodes starting at once all fetch its list): its
      // progress is watched from the header until its value is read, so the reader does not stand
      // against it. (One member stands for the list it could not read: no members is a goodbye.)
      this.staleness.observe({ ...moving, members: [{ id: moving.id, weight: 1 }] }, read.startedAt);
    }
    return read;
  }

  /**
   * Takes in a read: the highest era, and the best leadership when it supersedes the one known;
   * returns that new best, if any. An observer (which never stands) also moves on to a worse
   * leadership, or to the same leadership at a lower Version (its leader restarted after the store
   * lost its data), once the remembered one went still: the better one may exist nowhere any more.
   * A follower moves on from a claim that a read of every nonce finds nowhere (see {@link claimLost}),
   * to a leadership no worse than the one it reports (`reported`): a store that rolled a key back
   * to an older value for a while (a failover that lost writes) brings the claim back, and the
   * node would have gone back an era meanwhile.
   */
  absorb(read: LeaderWindowRead, role: NodeRole, reported?: Pick<BroadcastHeader, 'era' | 'nonce' | 'id'>): Broadcast | undefined {
    for (const b of read.broadcasts) this.maxEra = Math.max(this.maxEra, b.era);
    const prev = this.bestSeen;
    // A claim followed that a read of some nonces only did not find, not even by a header whose
    // value it could not read (its candidate's first list, on a loaded store): the next read reads them all.
    const seen = read.broadcasts.some((b) => sameLeadership(b, prev)) || (read.moving !== undefined && sameLeadership({ ...read.moving, members: [] }, prev));
    this.#claimUnfound = prev !== undefined && isClaim(prev) && !readEveryNonce(read) && !seen;
    const best = read.best;
    if (best === undefined) return undefined;
    const wentBack = !sameLeadership(best, prev) || (prev !== undefined && best.version < prev.version);
    // An observer never stands, so after the store lost its data it moves on to what the store
    // holds once what it remembered went stale; but only on a read of every nonce: a nonce it
    // could not read may hold the leadership it remembered, moving on (a lower era, say) there.
    const moveOn = (role === 'observer' && wentBack && readEveryNonce(read) && this.staleness.isStale(read.at, this.#timing.timeoutMs)) || (role === 'follower' && claimLost(prev, read) && !worse(best, reported));
    if (!supersedes(best, this.bestSeen) && !moveOn) return undefined;
    // Stillness is timed from the start of the read that first saw the change: the change landed
    // after `startedAt − read latency` at the earliest, so a leader whose lease ends R after its
    // cycle start is fenced before anyone stands (R < T − I, latency ≤ the operation timeout ≤ I).
    this.sawOwn(best, read.startedAt);
    // Where its copy was found: `read` looked for the previous best's (see `copyNonce` in `read`),
    // and a node whose table hides that nonce from its next read on must know it missed it there.
    this.#copyAt = copyNonce(best, read) ?? this.#copyAt;
    return best;
  }

  /**
   * Whether this node's next read must read every nonce: the best leadership it knows is a claim,
   * and its last read, which did not read every nonce, did not find it. A poll reads the nonce of
   * the best leadership the window showed last, which is the claim's while the claim is there; so
   * a poll that finds a worse leadership publishing instead suggests the store lost the claim, and
   * only a read of every nonce shows it gone ({@link absorb}): polls of the worse leader's nonce
   * never scan while it publishes.
   */
  get mustReadEveryNonce(): boolean {
    return this.#claimUnfound;
  }

  /** Whether this node's last read of the leader window reached the store (some nonce answered). */
  get lastReadReached(): boolean {
    return this.#lastReachable;
  }

  /**
   * Whether a follower polls every `stillPollMs` (I/2) rather than every interval: the best
   * leadership it knows is a claim (confirmed, if at all, a settle time and two round trips after
   * it was made), or its Version has been still for `stillMs` (1.5I: its leader may be gone, and a
   * claim may come at any moment); and its last read reached the store (against a store that
   * answers nothing, faster polls would only add failed reads). Between two scans of the window it
   * reads only the nonce it follows, where a claim and its confirmation usually land (see
   * `LeaderWindow.poll`), so each member sees a new leader half an interval sooner, for one header
   * read more per interval, only while a leader is silent or a claim pending.
   */
  pollsFast(now: number): boolean {
    const best = this.bestSeen;
    return this.#lastReachable && best !== undefined && (isClaim(best) || this.staleness.isStale(now, this.#timing.stillMs));
  }

  /** Records a broadcast known at `at` without a read (the leader's own publication). */
  sawOwn(b: Broadcast, at: number): void {
    this.bestSeen = b;
    this.staleness.observe(b, at);
  }

  /**
   * Takes in a PING step that reached the store, completed at `at`: a newer PONG moves the PONG
   * clock and feeds the round-trip average. PONGs are found only by PINGs that reach the store, so
   * after a gap between two such PINGs longer than the read gap (2I: the store or this node's id
   * key was out, and this node could not look), PONG silence counts only from this one, as
   * stillness does after a gap in the reads: a store back from an outage does not make every listed
   * follower stand on PONGs its leader could not write either.
   */
  pinged(lastPongAt: number | undefined, lastPongRoundTripMs: number | undefined, at?: number): void {
    if (at !== undefined) {
      if (this.#lastPingAt !== undefined && at - this.#lastPingAt > this.#timing.readGapMs) this.pongBase = Math.max(this.pongBase, at);
      this.#lastPingAt = at;
    }
    if (lastPongAt !== undefined) this.#lastPongAt = Math.max(this.#lastPongAt ?? lastPongAt, lastPongAt);
    if (lastPongAt === undefined || lastPongAt <= this.pongBase) return;
    this.pongBase = lastPongAt;
    if (lastPongRoundTripMs !== undefined) this.pongRoundTripEwma = ewma(this.pongRoundTripEwma, lastPongRoundTripMs);
  }

  /**
   * The follower's rule at `now`, for a follower that waits `delayMs` longer than the others
   * (its stand tier): stand when the best leadership stood still for T
   * (`stale`) or said goodbye, or, while listed by the leader followed, when it has not PONGed
   * for T + 2I (PONGs are written once per interval and found once per interval, so two findings
   * are a whole number of intervals apart and up to 2I more than the leader's silence; the clock
   * restarts after a read gap, like stillness, see {@link read}: with less, a
   * leader pause shorter than T − I/2, which the broadcast rides out, could make a listed follower stand). The PONG path applies only while that leader is the best known: during an election (a
   * claim is the best) the follower waits for the claim to confirm or go still, or claims would
   * keep overtaking one another.
   *
   * Stillness is evidence only where the follower could look: when a read has failed, since the
   * Version last moved, on the nonce of the copy it follows or on the next one (where the leader
   * moves when it cannot write its own), and the follower still finds PONGs (one within T + 2I), it does not stand on `stale`
   * (nor, in {@link mayStandUnreachable}, on reading nothing): only PONG silence makes it stand, so a
   * live leader that PONGs it is not replaced by one node's private trouble with some keys.
   *
   * `deferToPriority`: the member list holds a member of higher priority than this node's (other
   * than the leader): a goodbye does not make this node stand at once, only once it has stayed
   * unchanged for T (plus the delay), so that the member of higher priority, which stands at once,
   * takes over (a leader's hand-over by priority, docs/protocol.md).
   */
  standReason(
    now: number,
    delayMs: number,
    leader: Pick<BroadcastHeader, 'era' | 'nonce' | 'id'> | undefined,
    listed: boolean,
    deferToPriority = false,
  ): 'stale' | 'goodbye' | 'pong-timeout' | undefined {
    const stale = this.staleness.isStale(now, this.#timing.timeoutMs + delayMs, !deferToPriority);
    if (stale && this.bestSeen && isGoodbye(this.bestSeen)) return 'goodbye';
    if (listed && !this.#listed) this.pongBase = now;
    this.#listed = listed;
    this.#following = leader !== undefined && sameLeadership(this.bestSeen, { ...leader, version: 0, members: [] });
    if (stale && !this.#hearsOnly(now, delayMs) && !this.#blind()) return 'stale';
    return this.#pongSilent(now, delayMs) ? 'pong-timeout' : undefined;
  }

  /**
   * Whether a follower that could read no nonce at all for T may stand (`unreachable`): not while
   * it follows a leader and still finds PONGs (see {@link standReason}); it stands once they stop
   * for T + 2I.
   */
  mayStandUnreachable(now: number, delayMs: number): boolean {
    return !this.#blind() && !(this.#following && this.#hears(now, delayMs));
  }

  /**
   * Whether this follower is due to stand at `now` (see {@link standAt}) and not waiting on a
   * nonce that newly failed: its step then only peeks at the nonce it follows (`LeaderWindow.poll`),
   * and stands at once if nothing changed there, rather than after a scan of every nonce (as long
   * as the slowest nonce's read: the operation timeout when a shard hangs). Its candidacy reads
   * every nonce before it claims.
   */
  standDue(now: number, delayMs: number, deferToPriority = false): boolean {
    return !this.#blind() && this.standAt(delayMs, deferToPriority) <= now;
  }

  /**
   * Whether this follower would be due to stand at `now` but for a nonce that newly failed, whose
   * wait has passed with no read of every nonce started since (see {@link standReason}): its next
   * read must read every nonce. A poll reads one nonce, and a follower whose followed nonce keeps
   * changing (a leadership worse than the one it tracks is publishing there) may never be given a
   * scan by `LeaderWindow.poll`: the wait would never end, and the follower would never stand.
   */
  mustLookAgain(now: number, delayMs: number, deferToPriority = false): boolean {
    return this.#blind() && this.standAt(delayMs, deferToPriority) <= now;
  }

  /** When the follower will stand if nothing changes (for a precise wake-up). */
  standAt(delayMs: number, deferToPriority = false): number {
    const { timeoutMs, pongTimeoutMs } = this.#timing;
    const pong = this.#listed ? this.pongBase + pongTimeoutMs + delayMs : Infinity;
    let stale = this.staleness.staleAt(timeoutMs + delayMs, !deferToPriority);
    // Stillness seen with nonces unread counts only once the PONGs have stopped too.
    if (this.#missedSinceChange() && this.#following && this.#lastPongAt !== undefined) stale = Math.max(stale, this.#lastPongAt + pongTimeoutMs + delayMs);
    // A nonce newly failed: not before a read started after the wait (see #lookAgainAfter).
    if (this.#blind()) stale = Math.max(stale, this.#blindUntil);
    return Math.min(stale, pong);
  }

  /**
   * True when stillness is no evidence and only PONG silence may make this follower stand: the
   * nonce of the copy followed, or the next one, could not be read since the tracked Version last
   * moved (a key unreadable to this node alone, as through a stale routing table: the leader may be
   * publishing there), and the follower, following a leader, still finds PONGs. An unreadable
   * key is not a stale Version; a PONG is a leader alive, and only a leader that lists this node
   * PONGs it, whether or not this node could read that list. A leader that died stops PONGing
   * too, and the follower stands T + 2I after the last PONG it found (docs/protocol.md, "What a
   * follower may conclude").
   */
  #hearsOnly(now: number, delayMs: number): boolean {
    return this.#missedSinceChange() && this.#following && this.#hears(now, delayMs);
  }

  /**
   * Takes in the nonces `read` tried: one that failed where this node's previous read of it did not
   * (or that it never read before) may hold a leadership written since that previous read, which
   * this node has not seen: a claim, or a leader confirmed just before its shard went down. That
   * leader moves to the next nonce at its next publication (it cannot write its own), within I of
   * the failure plus its read and compare-and-set (2τ); so stillness counts as evidence again only
   * on a read started that long after this one completed (see {@link standReason}). A nonce that
   * stays unavailable (a dead shard) costs this wait once, when it first fails; one that fails
   * again after a read succeeded costs it again.
   */
  #lookAgainAfter(read: LeaderWindowRead): void {
    // Only a read that tried every nonce looks again where one newly failed.
    if (read.scanned) this.#lastReadStartedAt = read.startedAt;
    for (const s of read.slots) {
      if (s.state === 'unavailable' && s.error === NOT_READ) continue;
      if (s.state !== 'unavailable') {
        this.#failing.delete(s.nonce);
      } else if (!this.#failing.has(s.nonce)) {
        this.#failing.add(s.nonce);
        this.#blindUntil = Math.max(this.#blindUntil, read.at + this.#newlyFailedMs);
      }
    }
  }

  /** Whether a nonce newly failed and no read has started since the wait it asks for (see {@link #lookAgainAfter}). */
  #blind(): boolean {
    return this.#lastReadStartedAt < this.#blindUntil;
  }

  /** Whether a read failed where the leader may be publishing since the tracked broadcast last changed. */
  #missedSinceChange(): boolean {
    return this.#sawUnread && this.#unreadWhileTracking === this.staleness.tracked;
  }

  /** A PONG found within T + 2I (plus the stand tier's delay) of `now`. */
  #hears(now: number, delayMs: number): boolean {
    return this.#lastPongAt !== undefined && now - this.#lastPongAt < this.#timing.pongTimeoutMs + delayMs;
  }

  /**
   * No PONG found for T + 2I (plus the stand tier's delay) while listed by the leader followed, and
   * this node's PINGs reach the store: PONGs are found only by PINGs that reach it, so while they
   * have failed for over 2I (a store just back from an outage, failing some operations) the silence
   * is this node's, not its leader's (see {@link pinged}).
   */
  #pongSilent(now: number, delayMs: number): boolean {
    const pinging = this.#lastPingAt === undefined || now - this.#lastPingAt <= this.#timing.readGapMs;
    return pinging && this.#listed && this.#following && now - this.pongBase >= this.#timing.pongTimeoutMs + delayMs;
  }
}

/**
 * True when `read` could not look where the leadership followed may be publishing now: it reached
 * no nonce, or it tried and failed on the nonce `copyAt` of the copy followed or on the next one. A leader
 * that cannot write its nonce moves to the next (wrapping within the window), so a frozen copy at
 * nonce k may mean the leader is at k + 1; it stops at the first nonce it can write, and with a
 * view shared with this reader that is one the reader can read. So a nonce further on that fails
 * for everyone (a dead shard) does not make a reader of k and k + 1 blind, and it still stands at T
 * after a crash. (A poll's nonces not read are not tried.)
 */
function missedWhereItMayBe(copyAt: number | undefined, read: LeaderWindowRead): boolean {
  if (!read.reachable) return true;
  if (copyAt === undefined) return false;
  const failed = (nonce: number): boolean => read.slots.some((s) => s.nonce === nonce && s.state === 'unavailable' && s.error !== NOT_READ);
  return failed(copyAt) || failed((copyAt + 1) % read.slots.length);
}

/**
 * True when `followed` is a claim that `read`, a read of every nonce, found nowhere: the store lost
 * it with its data. A claim is written once, by compare-and-set, and only its own candidate's first
 * publication or a better leadership replaces it, both of which supersede it; so a claim gone from
 * every nonce was erased (a flush, a restarted store), and its candidate, which finds it gone when
 * it confirms, gives it up (`claim-lost`). A follower that kept it as the best leadership known
 * would follow nothing while the leader elected since (of a lower era: the era record went with the
 * data) publishes, stand once the lost claim went still, and depose that leader with a higher era
 * (`pnpm chaos --seed 20261209`).
 */
function claimLost(followed: Broadcast | undefined, read: LeaderWindowRead): boolean {
  return followed !== undefined && isClaim(followed) && readEveryNonce(read) && !read.broadcasts.some((b) => sameLeadership(b, followed));
}

/** True when `b` ranks below the leadership `than` (none: nothing ranks below it). */
function worse(b: Broadcast, than: Pick<BroadcastHeader, 'era' | 'nonce' | 'id'> | undefined): boolean {
  return than !== undefined && compareLeadership(b, { ...than, version: 0, members: [] }) > 0;
}

/**
 * True when `read` tried and read both the nonce `copyAt` of the copy followed and the next one:
 * this node looked again where the leader followed may be publishing (see {@link missedWhereItMayBe}).
 */
function lookedWhereItMayBe(copyAt: number | undefined, read: LeaderWindowRead): boolean {
  if (copyAt === undefined) return false;
  const looked = (nonce: number): boolean => read.slots.some((s) => s.nonce === nonce && s.state !== 'unavailable');
  return looked(copyAt) && looked((copyAt + 1) % read.slots.length);
}

/**
 * True when `read` read every nonce and found `tracked` there at the same Version, and nothing that
 * supersedes it other than `except` (a candidate's own claim): a better leadership, a later Version
 * of it, a header of either whose value could not be read. Whatever its leader published since it
 * was first seen would be there, so it published nothing that the store kept (see
 * `Staleness.sawUnchanged`, and `decide` in `@roster/election`, which asks it of a confirming read).
 */
export function showsUnchanged(read: LeaderWindowRead, tracked: Broadcast | undefined, except?: Broadcast): boolean {
  return showsNothingNewer(read, tracked, except) && read.slots.some((s) => {
    const header = s.state === 'broadcast' ? s.broadcast : s.state === 'behind' ? s.header : undefined;
    return header !== undefined && sameLeadership(tracked, { ...header, members: [] }) && header.version === tracked!.version;
  });
}

/**
 * True when `read` read every nonce and found nothing, other than `except` (a candidate's own
 * claim), that supersedes `tracked`: a better leadership, a later Version of it, or a header of
 * either whose value could not be read. With `tracked` found there too, that is
 * {@link showsUnchanged}; a candidate whose claim replaced exactly `tracked` by compare-and-set
 * (which found it still there) concludes the same from it (`decide` in `@roster/election`).
 */
export function showsNothingNewer(read: LeaderWindowRead, tracked: Broadcast | undefined, except?: Broadcast): boolean {
  if (tracked === undefined || read.moving !== undefined || !readEveryNonce(read)) return false;
  for (const s of read.slots) {
    const header = s.state === 'broadcast' ? s.broadcast : s.state === 'behind' ? s.header : undefined;
    if (header === undefined) continue;
    const seen: Broadcast = { ...header, members: [] };
    if (except !== undefined && sameLeadership(seen, except)) continue;
    if (sameLeadership(tracked, seen) ? header.version > tracked.version : supersedes(seen, tracked)) return false;
  }
  return true;
}

/** The nonce where `read` found the latest copy of the leadership `followed`, if it found one. */
function copyNonce(followed: Broadcast | undefined, read: LeaderWindowRead): number | undefined {
  let best: { nonce: number; version: number } | undefined;
  for (const s of read.slots) {
    if (s.state !== 'broadcast' || !sameLeadership(s.broadcast, followed)) continue;
    if (best === undefined || s.broadcast.version > best.version) best = { nonce: s.nonce, version: s.broadcast.version };
  }
  return best?.nonce;
}

/** An exponentially weighted moving average with weight 1/8 for the new sample. */
function ewma(previous: number | undefined, sample: number): number {
  return previous === undefined ? sample : previous + (sample - previous) / 8;
}

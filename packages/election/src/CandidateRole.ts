import { formatBroadcast, isGoodbye, type RosterKeys } from '@roster/follower';
import type { CompoundKey } from '@roster/kv-adapter';
import { decide, writeClaim, type Candidacy, type CandidateDecision } from './Candidacy.js';
import type { ResolvedConfig } from './config.js';
import { readEraRecord, type EraRecord } from './eraRecord.js';
import type { RoleChangeReason } from './events.js';
import type { FaultLog } from './FaultLog.js';
import type { Following, LeaderWindowRead, OwnPublication } from '@roster/follower/internal';
import type { NodeStats } from './NodeStats.js';

/** What the candidate's role needs of its node. */
export interface CandidateHost {
  readonly config: ResolvedConfig;
  readonly keys: RosterKeys;
  readonly stats: NodeStats;
  readonly following: Following;
  /** The leader key as this node writes it (claims, publications). */
  readonly leaderKey: CompoundKey;
  /** Logs a failing claim once per change of state, across candidacies. */
  readonly claimLog: FaultLog;
  /** Where the best broadcast was last found. */
  broadcastNonce(): number | undefined;
  /** Whether `role` is still the node's role (and the node not stopped). */
  current(role: CandidateRole): boolean;
  /** Takes in a read of the leader window (see RosterNode). */
  absorb(read: LeaderWindowRead): void;
  /** Runs the node's step at once. */
  poke(): void;
}

/** Where a candidate step leads: on as candidate, back to following, or to leading on `read`. */
export type CandidateOutcome =
  | undefined
  | { readonly to: 'follower'; readonly reason: RoleChangeReason }
  | { readonly to: 'leader'; readonly candidacy: Candidacy & { phase: 'claimed' }; readonly read: LeaderWindowRead };

/**
 * The candidate: it reads the window, then claims, waits, follows or leads as {@link decide}
 * rules. The claim goes to `max era seen + 1` (in the window and in the era record) at the
 * lowest nonce of the leader key it can write; it is confirmed once everything else stood still
 * for T. One object per candidacy: {@link end} cancels its timer.
 */
export class CandidateRole {
  readonly #host: CandidateHost;
  #c: Candidacy;
  #known: OwnPublication | undefined;

  constructor(host: CandidateHost, blind: boolean) {
    this.#host = host;
    const f = host.following;
    // Standing on stillness seen across a store outage is standing blind too: the leader may be back.
    this.#c = { phase: 'unclaimed', basis: f.bestSeen, others: f.staleness.clone(), rivals: f.rivals, blind: blind || f.staleness.acrossGap };
  }

  /** What the candidate holds now. */
  get candidacy(): Candidacy {
    return this.#c;
  }

  /** The candidacy ends (the node follows, leads or stops): its settle timer is cancelled. */
  end(): void {
    if (this.#c.phase === 'claimed') this.#c.settle?.cancel();
  }

  /** One candidate step. */
  async step(): Promise<CandidateOutcome> {
    const host = this.#host;
    const { kv, clock, operationTimeoutMs, timing } = host.config;
    const c = this.#c;
    // Before a claim, the era record is read together with the window: a claim is then one round
    // trip after the read, not two (each round trip is long on a loaded node, and the later
    // members stand if the claim is not in the window by then). Not while the store answers
    // nothing: a claim needs a read that reached it, and the record is read then, before the
    // claim. Against an overloaded store, every member stands blind, and reading both windows at
    // each step was what held the group there (docs/scale.md).
    const readRecord = (): Promise<EraRecord> => readEraRecord(kv, host.keys.era(), clock, operationTimeoutMs, () => host.stats.count('garbage'));
    // (A blind candidate's last read, the follower's, reached nothing: it stood on reading nothing.)
    const record = c.phase === 'unclaimed' && host.following.lastReadReached ? readRecord() : undefined;
    const read = await host.following.read(c.others, 'read', this.#knownPublication());
    if (!this.#current(c)) return undefined;
    host.absorb(read);
    const decision = decide(c, read, clock.now(), timing);
    host.config.logger.debug({ node: host.config.id, ...traceOf(c, read, decision, clock.now(), timing.timeoutMs) }, 'candidate step');
    switch (decision.action) {
      case 'claim':
        return this.#claim(c, read, await (record ?? readRecord()));
      case 'follow':
        return { to: 'follower', reason: decision.reason };
      case 'lead':
        return c.phase === 'claimed' ? { to: 'leader', candidacy: c, read } : undefined;
      case 'wait':
        if (c.phase === 'claimed' && decision.at !== undefined) {
          c.settle?.cancel();
          c.settle = clock.setTimer(() => host.poke(), Math.max(0, decision.at - clock.now()));
        }
        return undefined;
    }
  }

  /** Claims `max era seen + 1` (in the window and in the era `record`) at the lowest leader-key nonce it can write. */
  async #claim(c: Candidacy, read: LeaderWindowRead, record: EraRecord): Promise<CandidateOutcome> {
    const host = this.#host;
    const { kv, clock, settleMs, operationTimeoutMs, weight, logger, id, timing } = host.config;
    const f = host.following;
    f.maxEra = Math.max(f.maxEra, record.era);
    if (!this.#current(c)) return undefined;
    // A node that knows no era at all (it just started, and read none) cannot tell a new store from
    // one whose era is hidden: while a leader nonce and an era nonce are both unreadable, claiming
    // era 1 could rank below a leadership held there. It waits for one of them to answer.
    if (f.maxEra === 0 && !record.complete && read.slots.some((s) => s.state === 'unavailable')) {
      host.stats.count('claim.deferred');
      return undefined;
    }
    const era = f.maxEra + 1;
    const claim = { era, version: 0, id, members: [{ id, weight }] };
    const writeStartedAt = clock.now();
    const written = await writeClaim({ kv, clock, opTimeoutMs: operationTimeoutMs, key: host.leaderKey, read, claim, current: () => this.#current(c) });
    if (written.outcome !== 'claimed') host.stats.count(`claim.${written.outcome}`);
    switch (written.outcome) {
      case 'claimed': {
        host.claimLog.worked();
        // The claim replaced what the read saw there, so the candidate was looking until it landed:
        // the read, the claim and the settle time may together span more than two intervals on a
        // loaded node, which is not a pause (see Staleness.sawRead; a claim slower than that is).
        c.others.sawRead(writeStartedAt, clock.now(), timing.readGapMs);
        host.stats.count('claim');
        f.maxEra = Math.max(f.maxEra, era);
        logger.info({ node: id, era, nonce: written.claim.nonce }, 'claimed leadership');
        const claimed: Candidacy & { phase: 'claimed' } = { ...c, phase: 'claimed', claim: written.claim, raw: written.raw, claimedAt: clock.now(), settle: undefined, replaced: written.replaced };
        claimed.settle = clock.setTimer(() => host.poke(), settleMs);
        this.#c = claimed;
        return undefined;
      }
      case 'race-lost':
        host.claimLog.worked();
        return { to: 'follower', reason: 'claim-race-lost' };
      case 'failed':
        // Once per change of state, not at every step of a candidacy against a dead store.
        host.claimLog.failed(written.error);
        return undefined;
      case 'abandoned':
        return undefined;
    }
  }

  /**
   * The broadcast a candidate knows whole and where it was found, so that its reads of the window
   * take that nonce by its header when it still holds exactly that broadcast (`LeaderWindow.check`),
   * rather than reading the old leader's whole list again: after a crash in a group of N, each of
   * the few candidates would read N ids at every step.
   */
  #knownPublication(): OwnPublication | undefined {
    const b = this.#host.following.bestSeen;
    const nonce = this.#host.broadcastNonce();
    if (b === undefined || nonce === undefined || isGoodbye(b)) return undefined;
    if (this.#known?.broadcast !== b || this.#known.nonce !== nonce) this.#known = { nonce, broadcast: b, raw: formatBroadcast(b) };
    return this.#known;
  }

  // A step in flight when the candidacy ended (or `destroy()` came) finishes its store operation
  // after it: from then on it changes nothing.
  #current(c: Candidacy): boolean {
    return this.#host.current(this) && this.#c === c;
  }
}

/**
 * What a candidate step read and decided, for a debug line: each nonce as `era.nonce.version`
 * (`~` for a header only), `-` empty, `!` unavailable, `?` garbage; the broadcast tracked and how
 * long until it counts as seen still (ms from `now`).
 */
function traceOf(c: Candidacy, read: LeaderWindowRead, decision: CandidateDecision, now: number, timeoutMs: number): object {
  const v = (b: { era: number; nonce: number; version: number }): string => `${b.era}.${b.nonce}.${b.version}`;
  const slots = read.slots.map((s) => (s.state === 'broadcast' ? v(s.broadcast) : s.state === 'behind' ? `~${v(s.header)}` : s.state === 'empty' ? '-' : s.state === 'unavailable' ? '!' : '?'));
  const tracked = c.others.tracked;
  return {
    phase: c.phase,
    decision: decision.action === 'follow' ? `follow:${decision.reason}` : decision.action,
    slots: slots.join(' '),
    readMs: read.at - read.startedAt,
    ...(tracked && { tracked: v(tracked) }),
    stillInMs: Math.round(c.others.seenStillAt(timeoutMs) - now),
    ...(c.phase === 'claimed' && { claim: v(c.claim), ...(c.replaced && { replaced: v(c.replaced) }) }),
  };
}

import { RosterKeys, formatBroadcast, formatMember, type Broadcast, type LeaderWindowRead, type Member } from '@roster/follower';
import { KeyUnavailableError, LocalDeadline, withDeadline, type CompoundKey } from '@roster/kv-adapter';
import type { ResolvedConfig } from './config.js';
import { LeadershipLostError } from './errors.js';
import type { LeadershipLossReason } from './events.js';
import { JoinPoller } from './JoinPoller.js';
import { Membership } from './Membership.js';
import type { NodeStats } from './NodeStats.js';
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
  /** Called once when the lease runs out before it was renewed. */
  readonly onLeaseLost: (reason: 'lease-expired' | 'store-unavailable') => void;
  /** Asks the node for a step now (a LEAVE arrived). */
  readonly poke: () => void;
}

/** How one publication ended. */
export type PublishOutcome =
  | { readonly outcome: 'published'; readonly broadcast: Broadcast }
  /** Another write replaced the value we read: read again at once. */
  | { readonly outcome: 'conflict' }
  /** The store did not take it (unreachable, timed out, every nonce unavailable). */
  | { readonly outcome: 'failed' }
  /** The lease ran out before the publication landed, or leadership ended meanwhile. */
  | { readonly outcome: 'too-late' };

/**
 * Everything a node holds while it leads (seed 003 §3–4): the lease, the member list, publication
 * by compare-and-set, a PONG worker per follower, the JOIN poller, and the one way leadership ends
 * ({@link end}), whatever the reason.
 *
 * The lease: after each publication whose cycle started at `s`, the node may call itself leader
 * until `s + renewDeadlineMs` on its local clock. A follower stands only after the Version stood
 * still for T > renewDeadlineMs + operation timeout, so the lease always ends first.
 */
export class LeaderRole {
  readonly #o: LeaderRoleOptions;
  readonly #membership: Membership;
  readonly #poller: JoinPoller;
  readonly #workers = new Map<string, PongWorker>();
  readonly #joiners: Member[] = [];
  readonly #leavers = new Set<string>();
  readonly #lease: LocalDeadline;
  readonly #abort = new AbortController();
  #me: Broadcast;
  #raw: string;
  #leaseUntil = -Infinity;
  /** True while the last publication attempt failed: a lease that runs out then is the store's doing. */
  #failing = false;
  #ending: Promise<void> | undefined;

  constructor(options: LeaderRoleOptions) {
    const { config, keys, stats } = options;
    const { clock, kv, logger, intervalMs, operationTimeoutMs, renewDeadlineMs } = config;
    this.#o = options;
    this.#me = options.claim;
    this.#raw = options.raw;
    this.#membership = new Membership({ id: config.id, weight: config.weight }, clock.now(), options.inherited);
    this.#lease = new LocalDeadline(clock, renewDeadlineMs, () => {
      if (!this.#ending) options.onLeaseLost(this.#failing ? 'store-unavailable' : 'lease-expired');
    });
    this.#poller = new JoinPoller({
      kv,
      key: keys.join(),
      clock,
      logger,
      intervalMs,
      opTimeoutMs: operationTimeoutMs,
      onJoin: (ms) => void this.#joiners.push(...ms),
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

  /** Aborts (with a {@link LeadershipLostError}) when leadership ends. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** True while the lease holds at `now`. */
  holdsLease(now: number): boolean {
    return this.#ending === undefined && now < this.#leaseUntil;
  }

  /** Starts leading: the lease from `leaseFrom` (the start of the read that confirmed), the loops. */
  start(leaseFrom: number): void {
    this.#renew(leaseFrom);
    this.#syncWorkers();
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
    if (this.#ending) return { outcome: 'too-late' };
    if (!read.reachable) return this.#failed();
    const now = clock.now();
    this.#membership.admit(this.#joiners.splice(0), now);
    for (const id of this.#leavers) this.#membership.remove(id);
    this.#leavers.clear();
    this.#membership.dropSilent(now, timeoutMs);
    const next: Broadcast = { ...this.#me, version: this.#me.version + 1, members: this.#membership.list() };
    const raw = formatBroadcast(next);
    for (let attempt = 0; attempt < key.window; attempt++) {
      const slot = read.slots[key.nonce];
      if (slot === undefined || slot.state === 'unavailable') {
        key.advance();
        continue;
      }
      const expected = slot.state === 'empty' ? null : slot.raw;
      try {
        const { swapped } = await withDeadline(clock, operationTimeoutMs, 'publish', kv.compareAndSet(key.current, expected, raw));
        if (this.#ending) return { outcome: 'too-late' };
        if (!swapped) {
          this.#o.stats.count('publish.conflict');
          return { outcome: 'conflict' };
        }
        // A publication that lands after the lease ran out (a pause, a slow store) does not revive it.
        if (!this.holdsLease(clock.now())) return { outcome: 'too-late' };
        this.#o.stats.count('publish');
        this.#me = next;
        this.#raw = raw;
        this.#failing = false;
        this.#renew(cycleStart);
        this.#syncWorkers();
        return { outcome: 'published', broadcast: next };
      } catch (error) {
        if (this.#ending) return { outcome: 'too-late' };
        if (!KeyUnavailableError.is(error)) {
          logger.warn({ err: error }, 'publish failed');
          return this.#failed();
        }
        key.advance();
      }
    }
    return this.#failed();
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
    this.#leaseUntil = -Infinity;
    this.#abort.abort(new LeadershipLostError(reason));
    config.logger.info({ node: config.id, reason, era: this.#me.era }, 'stopped leading');
    const loops = Promise.all([this.#poller.stop(), ...[...this.#workers.values()].map((w) => w.stop())]);
    const handOver = reason === 'dethroned' ? this.#handOver() : Promise.resolve();
    this.#ending = Promise.all([loops, handOver]).then(() => (reason === 'stopped' ? this.#goodbye() : undefined));
    return this.#ending;
  }

  #failed(): PublishOutcome {
    this.#failing = true;
    return { outcome: 'failed' };
  }

  #renew(cycleStart: number): void {
    this.#leaseUntil = cycleStart + this.#o.config.renewDeadlineMs;
    this.#lease.arm(cycleStart);
  }

  /** Starts a PONG worker for every follower, stops those of members gone. */
  #syncWorkers(): void {
    const { kv, clock, logger, intervalMs, timeoutMs, operationTimeoutMs } = this.#o.config;
    const ids = new Set(this.#membership.followerIds());
    for (const [id, worker] of this.#workers) {
      if (ids.has(id)) continue;
      void worker.stop();
      this.#workers.delete(id);
    }
    for (const id of ids) {
      if (this.#workers.has(id)) continue;
      const worker = new PongWorker({
        kv,
        key: this.#o.keys.idKey(id),
        clock,
        logger,
        intervalMs,
        timeoutMs,
        opTimeoutMs: operationTimeoutMs,
        onPing: () => {
          this.#o.stats.count('pong');
          this.#membership.pinged(id, clock.now());
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

  /** Publishes a goodbye (no members, next Version) so that followers elect at once. */
  #goodbye(): Promise<void> {
    const { kv, clock, operationTimeoutMs, logger, id } = this.#o.config;
    const goodbye: Broadcast = { ...this.#me, version: this.#me.version + 1, members: [] };
    return withDeadline(clock, operationTimeoutMs, 'goodbye', kv.compareAndSet(this.#o.leaderKey.current, this.#raw, formatBroadcast(goodbye))).then(
      ({ swapped }) => logger.info({ node: id, written: swapped }, 'said goodbye'),
      (error: unknown) => logger.warn({ err: error }, 'could not say goodbye'),
    );
  }
}

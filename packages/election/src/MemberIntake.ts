import type { Member, RosterKeys } from '@roster/follower';
import type { ResolvedConfig } from './config.js';
import { JoinPoller } from './JoinPoller.js';
import { Membership } from './Membership.js';
import type { NodeStats } from './NodeStats.js';
import { PongRound } from './PongRound.js';
import { PongWorker } from './PongWorker.js';

/** Options of {@link MemberIntake}. */
export interface MemberIntakeOptions {
  readonly config: ResolvedConfig;
  readonly keys: RosterKeys;
  readonly stats: NodeStats;
  /** The members taken over from the leadership this one replaces. */
  readonly inherited: readonly Member[];
  /** Whether leadership is ending (a LEAVE then changes nothing). */
  readonly ending: () => boolean;
  /** Asks the node for a step now (a LEAVE arrived). */
  readonly poke: () => void;
  /** The period of the PONG round, asked at each beat (`pongPeriodMs` at the node's pace). @defaultValue the interval */
  readonly pongPeriodMs?: () => number;
}

/**
 * A leader's member list and what feeds it: the JOIN poller (who asked to join), a PONG worker
 * per follower (who is alive, who left), on one shared round. {@link take} turns what they found
 * into the list of the next publication.
 */
export class MemberIntake {
  readonly #o: MemberIntakeOptions;
  readonly #membership: Membership;
  readonly #poller: JoinPoller;
  readonly #workers = new Map<string, PongWorker>();
  /** The beat the PONG workers share, so that their commands of one interval leave together. */
  readonly #round: PongRound;
  /** Each follower's PONG round trip, as it reported it in its last PING. */
  readonly #pongRoundTrips = new Map<string, number>();
  readonly #joiners: Member[] = [];
  readonly #leavers = new Set<string>();

  constructor(options: MemberIntakeOptions) {
    this.#o = options;
    const { config, keys, stats } = options;
    const { clock, kv, logger, intervalMs, operationTimeoutMs } = config;
    this.#round = new PongRound({ clock, periodMs: options.pongPeriodMs ?? intervalMs, logger });
    this.#membership = new Membership(selfMember(config), clock.now(), options.inherited);
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

  /** Each follower's reported PONG round trip (ms), by id. */
  get pongRoundTrips(): ReadonlyMap<string, number> {
    return this.#pongRoundTrips;
  }

  /** Every member, the leader first. */
  members(): Member[] {
    return this.#membership.list();
  }

  /** Starts the JOIN poller (the PONG workers start with the first publication, see {@link sync}). */
  start(): void {
    this.#poller.start();
  }

  /**
   * The list of the next publication at `now`: joiners admitted, leavers removed, members silent
   * for T dropped. After a lapse (`refresh`) the PONG workers may not have run: every member gets
   * a full T again.
   */
  take(now: number, refresh: boolean): Member[] {
    if (refresh) this.#membership.refresh(now);
    this.#membership.admit(this.#joiners.splice(0), now);
    for (const id of this.#leavers) this.#membership.remove(id);
    this.#leavers.clear();
    this.#membership.dropSilent(now, this.#o.config.timeoutMs);
    return this.#membership.list();
  }

  /**
   * The member of higher priority than the leader's that has PINGed it without a gap for the
   * settle time (`preemptSettleMs`) and is still heard (`preemptHealthyMs`): the leader hands over
   * to it (see `LeaderRole`). `undefined` when there is none.
   */
  preferred(now: number): Member | undefined {
    const { timing } = this.#o.config;
    return this.#membership.preferred(now, timing.preemptSettleMs, timing.preemptHealthyMs);
  }

  /** Starts a PONG worker for every follower listed, stops those of members gone. */
  sync(): void {
    const { kv, clock, logger, intervalMs, operationTimeoutMs, timing } = this.#o.config;
    const ids = new Set(this.#membership.followerIds());
    for (const [id, worker] of this.#workers) {
      if (ids.has(id)) continue;
      void worker.stop();
      this.#workers.delete(id);
      this.#pongRoundTrips.delete(id);
    }
    for (const id of ids) {
      if (this.#workers.has(id)) continue;
      const worker = new PongWorker({
        kv,
        key: this.#o.keys.idKey(id),
        clock,
        logger,
        intervalMs,
        quietMs: timing.followerQuietMs,
        opTimeoutMs: operationTimeoutMs,
        round: this.#round,
        onPing: (pongRoundTripMs) => {
          this.#o.stats.count('pong');
          if (pongRoundTripMs !== undefined) this.#pongRoundTrips.set(id, pongRoundTripMs);
          this.#membership.pinged(id, clock.now(), timing.preemptHealthyMs);
          // A PING written over its LEAVE: the member came back (restarted) before the leave was
          // published (the leader could not publish meanwhile): it stays.
          this.#leavers.delete(id);
        },
        onFailed: () => this.#o.stats.count('pong.failed'),
        onLeave: () => {
          if (this.#o.ending() || !this.#membership.has(id)) return;
          this.#leavers.add(id);
          this.#o.poke();
        },
      });
      this.#workers.set(id, worker);
      worker.start();
    }
  }

  /** Stops the poller and every worker; resolves when their rounds in flight have ended. */
  async stop(): Promise<void> {
    await Promise.all([this.#poller.stop(), ...[...this.#workers.values()].map((w) => w.stop())]);
  }
}

/** The node itself as a member: its id, weight and priority (none when 0, as it travels). */
export function selfMember(config: Pick<ResolvedConfig, 'id' | 'weight' | 'priority'>): Member {
  return config.priority === 0 ? { id: config.id, weight: config.weight } : { id: config.id, weight: config.weight, priority: config.priority };
}

import { parseMember, type Member } from '@roster/follower';
import { Ticker } from './Ticker.js';
import { type Clock, type CompoundKey, type KV, type Logger } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';

/** Options of {@link JoinPoller}. */
export interface JoinPollerOptions {
  readonly kv: KV;
  /** The join key. */
  readonly key: CompoundKey;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly intervalMs: number;
  readonly opTimeoutMs: number;
  /** Receives the joiners of each poll that found some. */
  readonly onJoin: (members: Member[]) => void;
  /** Called once per token that does not parse. */
  readonly onGarbage: () => void;
}

/**
 * The leader's JOIN poller: every interval it takes the content of every nonce of
 * the join key, atomically (read-and-delete in one step, so an id appended at the same moment is
 * either taken now or left for the next poll, never lost), and hands the joiners to the leader
 * loop. Tokens that do not parse are reported and dropped.
 */
export class JoinPoller {
  readonly #o: JoinPollerOptions;
  readonly #ticker: Ticker;

  constructor(options: JoinPollerOptions) {
    this.#o = options;
    this.#ticker = new Ticker({ clock: options.clock, periodMs: options.intervalMs, logger: options.logger, name: 'join-poller', step: () => this.poll() });
  }

  /** Starts polling, the first poll at once. */
  start(): void {
    this.#ticker.start();
  }

  /** Stops polling; resolves when a poll in progress has ended. */
  stop(): Promise<void> {
    return this.#ticker.stop();
  }

  /** Polls every nonce of the join key once. */
  async poll(): Promise<void> {
    const { kv, key, clock, logger, opTimeoutMs } = this.#o;
    const taken = await Promise.all(
      key.keys().map((k) =>
        withDeadline(clock, opTimeoutMs, 'join take', kv.take(k)).catch((error: unknown) => {
          logger.debug({ err: error, key: k }, 'join key not taken');
          return null;
        }),
      ),
    );
    const joiners: Member[] = [];
    let garbage = 0;
    let sample = '';
    for (const value of taken) {
      if (!value) continue;
      for (const token of value.split(' ')) {
        if (token === '') continue;
        const m = parseMember(token);
        if (m) joiners.push(m);
        else {
          this.#o.onGarbage();
          if (garbage++ === 0) sample = token.slice(0, 80);
        }
      }
    }
    // One line when garbage starts to come, however many tokens and polls it spans.
    if (garbage > 0 && !this.#garbageSeen) logger.warn({ tokens: garbage, first: sample }, 'ignoring join-key tokens that do not parse');
    this.#garbageSeen = garbage > 0;
    if (joiners.length > 0) this.#o.onJoin(joiners);
  }

  /** Whether the last poll found garbage (its warning is logged when garbage starts). */
  #garbageSeen = false;
}

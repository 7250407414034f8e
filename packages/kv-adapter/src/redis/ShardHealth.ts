import type { Clock } from '../clock/Clock.js';
import type { Logger } from '../logger.js';
import { keySlot } from './keySlot.js';

/** What {@link ShardHealth.admit} decides for one operation. */
export type Admission =
  /** Send it (to `node`, when known). */
  | { readonly verdict: 'send'; readonly node: string | undefined }
  /**
   * Refuse it at once: the key's node is down (`key-down`, `KeyUnavailableError`) or every node is
   * (`store-down`, `StoreUnavailableError`). `probe`: a probe of the node is due; the caller sends
   * one in the background (a harmless read of the key) and reports its outcome, so that no
   * operation ever waits for a node marked down (a frozen one holds a command for its whole timeout).
   */
  | { readonly verdict: 'key-down' | 'store-down'; readonly node: string; readonly probe: boolean };

/** Options of {@link ShardHealth}. */
export interface ShardHealthOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The store, for log lines. */
  readonly store: string;
  /** The slot table: `slots[slot][0]` is the `host:port` of the master serving the slot. */
  readonly slots: () => readonly (readonly string[] | undefined)[];
  /** First wait before a node marked down is tried again (doubling on each failed try). @defaultValue 100 */
  readonly probeMinMs?: number;
  /** Longest wait between two tries of a node marked down. @defaultValue 1000 */
  readonly probeMaxMs?: number;
}

interface Down {
  readonly since: number;
  backoffMs: number;
  nextProbeAt: number;
  probing: boolean;
}

/**
 * Which masters of a Redis Cluster are down, as seen by this client: a node is marked down when
 * its connection fails (or ioredis reports a `node error`) or two commands to it in a row time
 * out, and up again when a command to it succeeds. Operations on keys that a down node serves are
 * always refused at once; one probe per back-off (100 ms doubling to 1 s), sent in the background
 * by the caller, tests the node, so a dead or frozen shard costs neither the caller's deadline nor
 * a reconnection per operation. When every master is down the failure is
 * the store's, not a key's. Logs once per change of a node's state.
 */
export class ShardHealth {
  readonly #o: ShardHealthOptions;
  readonly #down = new Map<string, Down>();
  /** Timeouts in a row per node not (yet) marked down: one alone may be a slow moment. */
  readonly #strikes = new Map<string, number>();
  readonly #min: number;
  readonly #max: number;
  #storeDown = false;

  constructor(options: ShardHealthOptions) {
    this.#o = options;
    this.#min = options.probeMinMs ?? 100;
    this.#max = options.probeMaxMs ?? 1000;
  }

  /** The `host:port` of the master that serves `key`, if the slot table knows it. */
  nodeOf(key: string): string | undefined {
    return this.#o.slots()[keySlot(key)]?.[0];
  }

  /** True while `node` is marked down. */
  isDown(node: string): boolean {
    return this.#down.has(node);
  }

  /** True when every master of the slot table is marked down. */
  get allDown(): boolean {
    return this.#storeDown;
  }

  /** Decides whether an operation on `key` is sent or refused at once. */
  admit(key: string): Admission {
    const node = this.nodeOf(key);
    const down = node === undefined ? undefined : this.#down.get(node);
    if (node === undefined || down === undefined) return { verdict: 'send', node };
    const probe = !down.probing && this.#o.clock.now() >= down.nextProbeAt;
    if (probe) down.probing = true;
    return { verdict: this.#storeDown ? 'store-down' : 'key-down', node, probe };
  }

  /** A command to `node` succeeded: it is up. */
  succeeded(node: string | undefined): void {
    if (node === undefined) return;
    this.#strikes.delete(node);
    const down = this.#down.get(node);
    if (!down) return;
    this.#down.delete(node);
    // A warning like the one that said it went down, so that whoever sees one sees the other.
    this.#o.logger.warn({ store: this.#o.store, node, downMs: this.#o.clock.now() - down.since }, 'redis: cluster node is back');
    this.#recount();
  }

  /** A command to `node` timed out or its connection failed: it is down (or stays down, backing off). */
  failed(node: string | undefined, error: unknown): void {
    if (node === undefined) return;
    const now = this.#o.clock.now();
    const down = this.#down.get(node);
    if (down) {
      if (down.probing) {
        down.probing = false;
        down.backoffMs = Math.min(down.backoffMs * 2, this.#max);
        down.nextProbeAt = now + down.backoffMs;
      }
      return;
    }
    // A refused or lost connection is proof enough; a timeout counts on the second in a row.
    if (isTimeout(error)) {
      const strikes = (this.#strikes.get(node) ?? 0) + 1;
      this.#strikes.set(node, strikes);
      if (strikes < 2) return;
    }
    this.#strikes.delete(node);
    this.#down.set(node, { since: now, backoffMs: this.#min, nextProbeAt: now + this.#min, probing: false });
    this.#o.logger.warn(
      { store: this.#o.store, node, error: error instanceof Error ? error.message : String(error) },
      'redis: cluster node is down; failing its keys fast',
    );
    this.#recount();
  }

  /** A probe ended without telling anything (cancelled, or a reply error): allow the next one. */
  released(node: string | undefined): void {
    const down = node === undefined ? undefined : this.#down.get(node);
    if (down) down.probing = false;
  }

  #recount(): void {
    const masters = new Set<string>();
    for (const owners of this.#o.slots()) if (owners?.[0] !== undefined) masters.add(owners[0]);
    const all = masters.size > 0 && [...masters].every((m) => this.#down.has(m));
    if (all !== this.#storeDown) {
      this.#storeDown = all;
      if (all) this.#o.logger.warn({ store: this.#o.store, nodes: masters.size }, 'redis: every cluster node is down');
    }
  }
}

/** True for a command that timed out (ioredis `commandTimeout`), as opposed to a failed connection. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && /timed out/i.test(error.message);
}

/**
 * True for a failure that says the node did not serve the command (a lost, refused or timed-out
 * connection), as opposed to an error reply, which proves the node is up.
 */
export function isNodeFailure(error: unknown): boolean {
  if (!(error instanceof Error) || error.name === 'ReplyError') return false;
  return !(error instanceof TypeError || error instanceof RangeError);
}

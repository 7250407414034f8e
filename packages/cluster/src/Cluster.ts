import { UpdateStream, abortReason } from '@roster/kv-adapter/internal';
import { type LeaderInfo, type RosterNode } from '@roster/election';
import { computeBalance, type BalanceResult, type Instance } from './computeBalance.js';
import { ClusterLeftError } from './errors.js';
import type { Balance, ClusterUpdate, ClusterWatchFunction, RebalanceUpdate } from './events.js';
import { RosterMembership, type MembershipView } from './internal/RosterMembership.js';
import type { ResolvedClusterOptions } from './options.js';

/** The lifecycle of a cluster handle. */
export type ClusterState = 'idle' | 'joined' | 'leaving' | 'left';

/** Options of {@link Cluster.join}. */
export interface JoinOptions {
  /** Abandons the wait (the handle stays joined and keeps trying; call `leave()` to give up). */
  readonly signal?: AbortSignal;
}

interface Waiter {
  resolve(balance: Balance): void;
  reject(error: unknown): void;
}

/**
 * A connection to a cluster, as libcluster's: after {@link join} it knows this
 * instance's base thread index and the cluster's total thread count, and reports every change as
 * a re-balance. Create it with `createCluster()`.
 *
 * - **Static mode**: the index and total are configured; `join()` reports them at once.
 * - **Dynamic mode**: the instance is a member of a Roster group whose member weight is its
 *   thread count; instances are sorted by id, each one's base index is the sum of the thread
 *   counts before it, and the total is the sum of all ({@link computeBalance}).
 *
 * Indices are *should-be unique*: instances re-balance at slightly different moments, so for a
 * moment two of them may hold the same index. See docs/cluster.md for what to do about it.
 */
export class Cluster {
  /** The group (libcluster's cluster key). */
  readonly group: string;
  /** The environment. */
  readonly env: string;
  /** This instance's id. */
  readonly id: string;
  /** This instance's thread count. */
  readonly threads: number;
  /** `'dynamic'` with a store, `'static'` with configured settings. */
  readonly mode: 'dynamic' | 'static';

  readonly #options: ResolvedClusterOptions;
  readonly #updates: UpdateStream<ClusterUpdate>;
  readonly #membership: RosterMembership | undefined;
  readonly #abort = new AbortController();
  readonly #waiters = new Set<Waiter>();
  #state: ClusterState = 'idle';
  #index = -1;
  #total = 0;
  /** The balance last reported in a re-balance. */
  #reported = { index: -1, total: 0 };
  #instances: readonly Instance[] = [];
  /** The generation of the member list last adopted. */
  #adoptedGeneration: bigint | undefined;
  #starting: Promise<void> | undefined;
  #leaving: Promise<void> | undefined;

  /** @internal Use `createCluster()`. */
  constructor(options: ResolvedClusterOptions) {
    this.#options = options;
    this.group = options.group;
    this.env = options.env;
    this.id = options.id;
    this.threads = options.threads;
    this.mode = options.mode.kind;
    this.#updates = new UpdateStream<ClusterUpdate>(options.logger);
    const { onRebalance } = options;
    if (onRebalance) this.#updates.watch((u) => u.type === 'rebalance' && onRebalance(u));
    if (options.mode.kind === 'dynamic') {
      this.#membership = new RosterMembership(options, options.mode.store, (view) => this.#adopt(view));
    }
  }

  // ─── What the instance knows ──────────────────────────────────────────────────────────────────

  /** The lifecycle state: `idle` until `join()`, `joined`, `leaving`, then `left`. */
  get state(): ClusterState {
    return this.#state;
  }

  /** This instance's base thread index, or −1 while it is not a member. */
  get index(): number {
    return this.#index;
  }

  /** The number of threads in the whole cluster (0 before the first re-balance). */
  get total(): number {
    return this.#total;
  }

  /** True while this instance holds a range of indices (`index ≥ 0`). */
  get isMember(): boolean {
    return this.#index >= 0;
  }

  /** This instance's balance now: `{ index, threads, total }`. */
  get balance(): Balance {
    return { index: this.#index, threads: this.threads, total: this.#total };
  }

  /** Every instance this instance sees, sorted by id, with its base index. */
  get instances(): readonly Instance[] {
    return this.#instances;
  }

  /**
   * Dynamic mode: a fencing value for work done under the current balance, read when you write:
   * `leader fencing token × 2^53 + broadcast Version`, refreshed by every broadcast this instance
   * reads. Whatever an instance reads under a member list is lower than what any instance reads
   * under a later list, so a resource that refuses values lower than the highest it has seen
   * refuses an instance still working under an old balance (docs/cluster.md). `undefined` in
   * static mode, before the first list and after leaving.
   */
  get generation(): bigint | undefined {
    if (this.#state !== 'joined' && this.#state !== 'leaving') return undefined;
    return this.#membership?.generation;
  }

  /**
   * Dynamic mode: the Roster leadership this instance follows; its `token` is a fencing token
   * that strictly increases from one leader to the next.
   */
  get leader(): LeaderInfo | undefined {
    return this.#membership?.leader;
  }

  /** Dynamic mode: the underlying Roster node, once `join()` has started it. */
  get node(): RosterNode | undefined {
    return this.#membership?.node;
  }

  // ─── Events ───────────────────────────────────────────────────────────────────────────────────

  /** Calls `fn` with every update; returns the function that removes it. */
  watch(fn: ClusterWatchFunction): () => void {
    return this.#updates.watch(fn);
  }

  /**
   * Calls `fn` with every update of one type; returns the function that removes it.
   *
   * @example
   * ```ts
   * cluster.on('rebalance', ({ index, threads, total }) => console.log(`${index}+${threads}/${total}`));
   * ```
   */
  on<T extends ClusterUpdate['type']>(type: T, fn: (update: Extract<ClusterUpdate, { type: T }>) => void): () => void {
    return this.#updates.watch((u) => {
      if (u.type === type) fn(u as Extract<ClusterUpdate, { type: T }>);
    });
  }

  /** An async iterator over the updates from now on; it ends after `left`, or when `signal` aborts. */
  updates(options: { signal?: AbortSignal } = {}): AsyncIterableIterator<ClusterUpdate> {
    return this.#updates.iterate(options.signal);
  }

  /** `for await (const update of cluster)`: the same as {@link updates}. */
  [Symbol.asyncIterator](): AsyncIterableIterator<ClusterUpdate> {
    return this.updates();
  }

  // ─── Lifecycle ────────────────────────────────────────────────────────────────────────────────

  /**
   * Joins the cluster and resolves with this instance's balance once it is a member: at once in
   * static mode; in dynamic mode once the Roster leader lists it (within about two intervals when
   * a cluster is running, T + 2I for the first instance). Every re-balance on the way is reported
   * first. Calling it again while joined waits for membership again (resolving at once while a
   * member). Rejects with `ClusterLeftError` after `leave()`, with the store's error when it
   * cannot be connected (the handle is then `idle` again), and with `signal.reason` on abort.
   */
  join(options: JoinOptions = {}): Promise<Balance> {
    const { signal } = options;
    if (this.#state === 'leaving' || this.#state === 'left') {
      return Promise.reject(new ClusterLeftError(`cannot join ${this.#name}: this handle has left; create a new one`));
    }
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#state === 'idle') {
      this.#state = 'joined';
      this.#starting = this.#start();
    }
    if (this.#index >= 0) return Promise.resolve(this.balance);
    const starting = this.#starting!;
    return new Promise<Balance>((resolve, reject) => {
      const onAbort = (): void => waiter.reject(abortReason(signal!));
      const waiter: Waiter = {
        resolve: (balance) => {
          cleanup();
          resolve(balance);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      const cleanup = (): void => {
        this.#waiters.delete(waiter);
        signal?.removeEventListener('abort', onAbort);
      };
      this.#waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      starting.catch((error: unknown) => waiter.reject(error));
    });
  }

  /**
   * Leaves the cluster gracefully: the Roster node tells the leader (which drops it at once, so
   * the others re-balance within about one interval), the store is closed when the handle opened
   * it, and a last re-balance reports index −1 with the total of the instances that remain. Then
   * `left` is emitted and the iterators end. Idempotent.
   */
  leave(): Promise<void> {
    this.#leaving ??= this.#leave();
    return this.#leaving;
  }

  /**
   * Stops at once without telling the cluster: to the other instances this is a crash (they
   * re-balance after the Roster timeout). Locally it reports index −1 and `left`, as `leave()`.
   * For tests and for processes that must exit now.
   */
  destroy(): void {
    if (this.#state === 'left') return;
    this.#state = 'left';
    this.#abort.abort(new ClusterLeftError(`${this.#name} was destroyed`));
    this.#rejectWaiters(new ClusterLeftError(`${this.#name} was destroyed before this instance joined it`));
    this.#membership?.destroy();
    this.#finish(false);
  }

  /** Leaves the cluster (see {@link leave}). */
  [Symbol.asyncDispose](): Promise<void> {
    return this.leave();
  }

  // ─── Inside ───────────────────────────────────────────────────────────────────────────────────

  get #name(): string {
    return `${this.group}/${this.env}`;
  }

  async #start(): Promise<void> {
    const { mode, logger } = this.#options;
    if (mode.kind === 'static') {
      logger.debug({ group: this.group, env: this.env, index: mode.index, total: mode.total }, `cluster: static: joining cluster ${this.#name}`);
      this.#apply({ index: mode.index, total: mode.total, instances: [{ id: this.id, threads: this.threads, index: mode.index }] }, undefined);
      return;
    }
    const membership = this.#membership!;
    logger.debug({ group: this.group, env: this.env, store: membership.where }, `cluster: joining cluster ${this.#name} at <${membership.where}>`);
    try {
      await membership.start(this.#abort.signal);
    } catch (error) {
      if (this.#state === 'joined') this.#state = 'idle';
      logger.warn({ err: error, group: this.group, env: this.env }, `cluster: could not join cluster ${this.#name}`);
      throw error;
    }
  }

  /** A new member list from the Roster node. */
  #adopt(view: MembershipView): void {
    if (this.#state !== 'joined') return;
    this.#apply(computeBalance(view.members, this.id), view.generation);
  }

  #apply(result: BalanceResult, generation: bigint | undefined): void {
    const listChanged = !sameInstances(this.#instances, result.instances);
    this.#instances = result.instances;
    this.#adoptedGeneration = generation;
    if (listChanged) {
      this.#options.logger.debug(
        { group: this.group, env: this.env, instances: result.instances.map((i) => `${i.id === this.id ? '*' : ' '} ${i.id} [${i.index}]`) },
        `cluster: re-balancing cluster ${this.#name}`,
      );
      this.#updates.emit({ type: 'instances', instances: result.instances, generation });
    }
    this.#rebalance(result.index, result.total);
  }

  /**
   * Records the new base index and total, and reports a re-balance when the index changed, or the
   * total while this instance is a member (a non-member holds no index, so the total alone is no
   * news to it). `previous` is the balance last reported.
   */
  #rebalance(index: number, total: number): void {
    this.#index = index;
    this.#total = total;
    const previous = this.#reported;
    if (index === previous.index && (index < 0 || total === previous.total)) return;
    this.#reported = { index, total };
    const { logger } = this.#options;
    if (index < 0) logger.info({ group: this.group, env: this.env, total }, `cluster: this instance is no longer a member of ${this.#name}`);
    else {
      logger.info(
        { group: this.group, env: this.env, index, total, previous },
        `cluster: cluster ${this.#name} has re-balanced: new base is ${index} (was ${previous.index}), new total is ${total} (was ${previous.total})`,
      );
    }
    logger.debug({ index, threads: this.threads, total }, `cluster: re-balanced; this instance has index ${index} (${this.threads} threads) from a total of ${total}`);
    const update: RebalanceUpdate = {
      type: 'rebalance',
      index,
      threads: this.threads,
      total,
      previous,
      instances: this.#instances,
      generation: this.#adoptedGeneration,
    };
    this.#updates.emit(update);
    if (index >= 0) for (const waiter of [...this.#waiters]) waiter.resolve(this.balance);
  }

  async #leave(): Promise<void> {
    if (this.#state === 'left') return;
    const wasJoined = this.#state === 'joined';
    this.#state = 'leaving';
    this.#options.logger.debug({ group: this.group, env: this.env }, `cluster: leaving cluster ${this.#name}`);
    this.#abort.abort(new ClusterLeftError(`left ${this.#name} while joining it`));
    this.#rejectWaiters(new ClusterLeftError(`left ${this.#name} before this instance joined it`));
    if (wasJoined) {
      await this.#starting?.catch(() => undefined);
      await this.#membership?.stop();
    }
    if (this.#state !== 'leaving') return; // destroyed meanwhile
    this.#state = 'left';
    this.#finish(true);
  }

  /** The last re-balance (index −1, the total of the others) and the `left` update. */
  #finish(graceful: boolean): void {
    const { mode } = this.#options;
    const others = this.#instances.filter((i) => i.id !== this.id);
    const rest = mode.kind === 'static' ? { index: -1, total: this.#total, instances: [] } : computeBalance(others.map((i) => ({ id: i.id, weight: i.threads })), this.id);
    this.#instances = rest.instances;
    this.#adoptedGeneration = undefined;
    this.#rebalance(-1, rest.total);
    this.#options.logger.debug({ group: this.group, env: this.env, graceful }, `cluster: left cluster ${this.#name}`);
    this.#updates.emit({ type: 'left', graceful });
    this.#updates.close();
  }

  #rejectWaiters(error: ClusterLeftError): void {
    for (const waiter of [...this.#waiters]) waiter.reject(error);
  }
}

function sameInstances(a: readonly Instance[], b: readonly Instance[]): boolean {
  return a.length === b.length && a.every((x, i) => x.id === b[i]!.id && x.threads === b[i]!.threads);
}

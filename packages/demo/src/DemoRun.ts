import { setTimeout as delay } from 'node:timers/promises';
import type { LocalRedisCluster } from '@roster/testing';
import type Tinypool from 'tinypool';
import type { ClusterView } from './ClusterView.js';
import { seconds, type DemoDisplay } from './DemoDisplay.js';
import type { DemoStore } from './DemoStore.js';
import { serveKV } from './kvBridge.js';
import { isOwnMessage, type MainMessage, type WorkerMessage, type WorkerResult, type WorkerTask } from './messages.js';

/** The settings of a {@link DemoRun}. */
export interface DemoRunSettings {
  readonly group: string;
  readonly env: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Show the nodes' warnings. */
  readonly verbose: boolean;
}

/**
 * The nodes of one demo run: starting, killing, stopping them, and routing their messages. The
 * faults it stages, its own leader kills and the Redis Cluster's topology changes
 * (`ClusterChanges`), run one at a time, each from a cluster at rest ({@link alone}), so that each
 * one's effect is its own.
 */
export class DemoRun {
  readonly #tasks = new Map<string, Promise<void>>();
  readonly #senders = new Map<string, (message: MainMessage) => void>();
  /** The leader and the nonce it last broadcast at, to tell when the broadcast moves. */
  #leaderNonce: { readonly id: string; readonly nonce: number } | undefined;
  /** True while a fault runs under {@link alone}. */
  #busy = false;
  #counter = 0;
  #hellos = 0;
  #onHello: (() => void)[] = [];
  /** Why the nodes could not all start: the first that ended before its hello, or a worker that failed. */
  #startFailure: Error | undefined;
  #allStarted = false;

  constructor(
    private readonly pool: Tinypool,
    private readonly store: DemoStore,
    private readonly view: ClusterView,
    private readonly display: DemoDisplay,
    private readonly options: DemoRunSettings,
    private readonly now: () => number,
  ) {}

  /** The store's Redis Cluster, for `--cluster`. */
  get cluster(): LocalRedisCluster | undefined {
    return this.store.cluster;
  }

  /**
   * A worker process of the pool failed (tinypool's `error`). Before every node has said hello,
   * that is a worker that could not start (a broken build, a missing module): {@link started}
   * rejects with it rather than wait for a hello that will never come.
   */
  poolError(error: Error): void {
    if (this.#startFailure || this.#allStarted) return;
    this.#startFailure = new Error(`a worker process could not start: ${error.message}`);
    for (const fn of this.#onHello.splice(0)) fn();
  }

  /**
   * Resolves once `n` nodes have said hello; rejects as soon as one ended before it did, or a
   * worker process failed meanwhile ({@link poolError}): there is nothing to show.
   */
  started(n: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.#startFailure) reject(this.#startFailure);
        else if (this.#hellos >= n) {
          this.#allStarted = true;
          resolve();
        } else this.#onHello.push(check);
      };
      check();
    });
  }

  /** Starts node `n<k>` in a fresh worker process. */
  startNode(): void {
    const id = `n${++this.#counter}`;
    this.view.add(id);
    const { options, store } = this;
    const task: WorkerTask = { id, group: options.group, env: options.env, intervalMs: options.intervalMs, timeoutMs: options.timeoutMs, store: store.worker };

    // tinypool's channel: it calls `onMessage` with the function that sends to the worker, and
    // `postMessage` with every message of ours the worker sends. Until the worker says hello,
    // what we send waits in `queue`.
    const listeners: ((message: unknown) => void)[] = [];
    let queue: MainMessage[] | undefined = [];
    const send = (message: MainMessage): void => {
      if (queue) queue.push(message);
      else for (const listener of listeners) listener(message);
    };
    const channel = {
      onMessage: (listener: (message: unknown) => void) => void listeners.push(listener),
      postMessage: (message: unknown) => {
        if (!isOwnMessage(message)) return;
        const m = message as WorkerMessage;
        if (m.kind === 'hello') {
          const waiting = queue ?? [];
          queue = undefined;
          for (const w of waiting) send(w);
        }
        this.#receive(id, m, send);
      },
    };
    this.#senders.set(id, send);
    const done = (this.pool.run(task, { channel }) as Promise<WorkerResult>).then(
      () => this.view.ended(id, 'stopped'),
      (error: unknown) => {
        const node = this.view.node(id);
        const message = error instanceof Error ? error.message : String(error);
        if (node && node.life !== 'killed') this.display.note(this.now(), `${id} exited unexpectedly: ${message}`);
        this.view.ended(id, 'crashed');
        if (node?.pid === undefined && !this.#startFailure) {
          this.#startFailure = new Error(`${id} ended before it started: ${message}`);
          for (const fn of this.#onHello.splice(0)) fn();
        }
      },
    );
    this.#tasks.set(id, done);
  }

  #receive(id: string, m: WorkerMessage, send: (message: MainMessage) => void): void {
    const at = this.now();
    switch (m.kind) {
      case 'hello':
        this.view.hello(id, m.pid);
        this.display.note(at, `started ${id} (pid ${m.pid})`);
        this.#hellos++;
        for (const fn of this.#onHello.splice(0)) fn();
        return;
      case 'event': {
        const overlaps = this.view.overlaps.length;
        const failover = this.view.apply(m.event, at);
        this.#noteOverlap(overlaps, at);
        this.display.event(at, m.event);
        if (failover?.newLeader) {
          this.display.note(
            at,
            `failover ${seconds(failover.durationMs!)} (timeout ${seconds(this.options.timeoutMs)}): every survivor follows ${failover.newLeader.id}, era ${failover.newLeader.era}`,
          );
        }
        return;
      }
      case 'tick': {
        const overlaps = this.view.overlaps.length;
        this.view.tick(m, at);
        this.#noteOverlap(overlaps, at);
        const leader = this.view.leaderNode;
        if (leader?.id === m.id && m.nonce !== undefined) {
          const moved = this.#leaderNonce !== undefined && this.#leaderNonce.id === m.id && this.#leaderNonce.nonce !== m.nonce;
          if (moved) this.display.note(at, `${m.id} still leads; its broadcast moved from nonce ${this.#leaderNonce!.nonce} to nonce ${m.nonce}`);
          this.#leaderNonce = { id: m.id, nonce: m.nonce };
        }
        this.display.changed();
        return;
      }
      case 'log':
        if (this.options.verbose) this.display.note(at, `${m.id} ${m.level}: ${m.message}`);
        return;
      case 'kv': {
        const kv = this.store.kv;
        if (kv) void serveKV(kv, m).then(send);
        return;
      }
    }
  }

  /** Says so when two nodes report leader at once (a new overlap since there were `before`). */
  #noteOverlap(before: number, at: number): void {
    for (const o of this.view.overlaps.slice(before)) this.display.note(at, `two nodes report leader at once: ${o.ids.join(' and ')}`);
  }

  /**
   * Runs `work` once the cluster is at rest ({@link ClusterView.settled}), `ready` holds and no
   * other fault runs, and lets no other fault start until it is done. Rejects when `signal` aborts
   * while waiting.
   */
  async alone<T>(signal: AbortSignal, work: () => Promise<T>, ready: () => boolean = () => true): Promise<T> {
    while (this.#busy || !this.view.settled || !ready()) await delay(50, undefined, { signal });
    this.#busy = true;
    try {
      return await work();
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Every `everyMs` (or later: {@link alone}), SIGKILLs the leader's process and starts a node in
   * its place.
   */
  async killLeaders(everyMs: number, signal: AbortSignal): Promise<void> {
    try {
      for (;;) {
        await delay(everyMs, undefined, { signal });
        await this.alone(signal, async () => {
          const victim = this.view.leaderNode;
          if (!victim?.pid) return;
          process.kill(victim.pid, 'SIGKILL');
          this.view.killed(victim.id, this.now());
          this.display.note(this.now(), `killed the leader ${victim.id} (pid ${victim.pid}) with SIGKILL`);
          await this.#tasks.get(victim.id);
          if (!signal.aborted) this.startNode();
        });
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  /** Stops every node gracefully (each leaves, or resigns), waiting at most a few seconds. */
  async stopAll(killing: Promise<void>): Promise<void> {
    await killing.catch(() => undefined);
    for (const node of this.view.alive) {
      this.view.stopping(node.id);
      this.#senders.get(node.id)?.({ kind: 'stop' });
    }
    const grace = new AbortController();
    const graceMs = Math.max(3000, 3 * this.options.timeoutMs);
    await Promise.race([Promise.all(this.#tasks.values()), delay(graceMs, undefined, { signal: grace.signal }).catch(() => undefined)]);
    grace.abort();
  }
}

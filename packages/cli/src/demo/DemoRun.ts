import { setTimeout as delay } from 'node:timers/promises';
import type { LocalRedisShard } from '@roster/kv-adapter/testing';
import type Tinypool from 'tinypool';
import type { ClusterView } from './ClusterView.js';
import { seconds, type DemoDisplay } from './DemoDisplay.js';
import type { DemoStore } from './DemoStore.js';
import { serveKV } from './kvBridge.js';
import { isOwnMessage, type MainMessage, type WorkerMessage, type WorkerResult, type WorkerTask } from './messages.js';

/** The settings of a {@link DemoRun}. */
export interface DemoRunSettings {
  readonly cluster: string;
  readonly env: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Show the nodes' warnings. */
  readonly verbose: boolean;
}

/** The nodes of one demo run: starting, killing, stopping them, and routing their messages. */
export class DemoRun {
  readonly #tasks = new Map<string, Promise<void>>();
  readonly #senders = new Map<string, (message: MainMessage) => void>();
  /** The leader and the nonce it last broadcast at, to tell when the broadcast moves. */
  #leaderNonce: { readonly id: string; readonly nonce: number } | undefined;
  /** The master killed by {@link killLeaderShard}, until {@link restartShard}. */
  #deadShard: LocalRedisShard | undefined;
  /** Set by {@link killLeaderShard} until the leader's broadcast is seen to move: no leader kill meanwhile. */
  #shardKill: { readonly at: number; readonly leader: string } | undefined;
  #counter = 0;
  #hellos = 0;
  #onHello: (() => void)[] = [];

  constructor(
    private readonly pool: Tinypool,
    private readonly store: DemoStore,
    private readonly view: ClusterView,
    private readonly display: DemoDisplay,
    private readonly options: DemoRunSettings,
    private readonly now: () => number,
  ) {}

  /** Resolves once `n` nodes have said hello. */
  started(n: number): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#hellos >= n) resolve();
        else this.#onHello.push(check);
      };
      check();
    });
  }

  /** Starts node `n<k>` in a fresh worker process. */
  startNode(): void {
    const id = `n${++this.#counter}`;
    this.view.add(id);
    const { options, store } = this;
    const task: WorkerTask = { id, cluster: options.cluster, env: options.env, intervalMs: options.intervalMs, timeoutMs: options.timeoutMs, store: store.worker };

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
        if (node && node.life !== 'killed') {
          this.display.note(this.now(), `${id} exited unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
        }
        this.view.ended(id, 'crashed');
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
        const failover = this.view.apply(m.event, at);
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
        this.view.tick(m.id, m.role, m.version, m.latencyMs, m.nonce, m.storeMs);
        const leader = this.view.leaderNode;
        if (leader?.id === m.id && m.nonce !== undefined) {
          const moved = this.#leaderNonce !== undefined && this.#leaderNonce.id === m.id && this.#leaderNonce.nonce !== m.nonce;
          if (moved) {
            this.display.note(at, `${m.id} still leads; its broadcast moved from nonce ${this.#leaderNonce!.nonce} to nonce ${m.nonce}`);
            this.#shardKill = undefined;
          }
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

  /** Every `everyMs`, once the cluster is at rest, SIGKILLs the leader's process and starts a node in its place. */
  async killLeaders(everyMs: number, signal: AbortSignal): Promise<void> {
    try {
      for (;;) {
        await delay(everyMs, undefined, { signal });
        while (!this.view.settled || this.#awaitingMove()) await delay(50, undefined, { signal });
        const victim = this.view.leaderNode;
        if (!victim?.pid) continue;
        process.kill(victim.pid, 'SIGKILL');
        this.view.killed(victim.id, this.now());
        this.display.note(this.now(), `killed the leader ${victim.id} (pid ${victim.pid}) with SIGKILL`);
        await this.#tasks.get(victim.id);
        if (signal.aborted) return;
        this.startNode();
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  /**
   * Cluster mode: SIGKILLs the Redis Cluster master that serves the leader key at the nonce the
   * leader broadcasts at now (waiting, up to `signal`, for the cluster to be at rest first).
   */
  async killLeaderShard(signal: AbortSignal): Promise<void> {
    const cluster = this.store.cluster;
    if (!cluster || this.#deadShard) return;
    for (;;) {
      const leader = this.view.leaderNode;
      if (this.view.settled && leader?.nonce !== undefined) {
        const key = `roster/${this.options.cluster}/${this.options.env}/leader ${leader.nonce}`;
        const shard = await cluster.shardFor(key);
        const pid = shard.pid;
        await cluster.kill(shard);
        this.#deadShard = shard;
        this.#shardKill = { at: this.now(), leader: leader.id };
        this.display.note(this.now(), `killed the Redis master ${shard.address} (pid ${pid}) with SIGKILL: it serves "${key}", where leader ${leader.id} broadcasts`);
        return;
      }
      await delay(50, undefined, { signal });
    }
  }

  /**
   * True while the leader key's master was just killed and the same leader has not yet been seen
   * broadcasting at another nonce (for at most 5 T): a leader kill would hide the move.
   */
  #awaitingMove(): boolean {
    const k = this.#shardKill;
    if (!k) return false;
    if (this.view.leaderNode?.id !== k.leader || this.now() - k.at > 5 * this.options.timeoutMs) this.#shardKill = undefined;
    return this.#shardKill !== undefined;
  }

  /** Cluster mode: starts the killed master again (it rejoins with its slots, and no data). */
  async restartShard(): Promise<void> {
    const shard = this.#deadShard;
    if (!shard || !this.store.cluster) return;
    await this.store.cluster.restart(shard);
    this.#deadShard = undefined;
    this.display.note(this.now(), `restarted the Redis master ${shard.address} (pid ${shard.pid}), empty`);
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

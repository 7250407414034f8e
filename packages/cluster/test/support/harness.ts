import { MemoryKV } from '@roster/kv-adapter';
import { MemoryLogger, VirtualClock } from '@roster/testing';
import { createCluster, type Cluster, type ClusterOptions, type RebalanceUpdate } from '../../src/index.js';

/** The timing of the specs: I = 100 ms, T = 500 ms. */
export const I = 100;
export const T = 500;

/**
 * Instances of one dynamic cluster sharing a MemoryKV on a VirtualClock. Each instance records
 * the re-balances it reports.
 */
export class Sim {
  readonly clock = new VirtualClock();
  readonly kv = new MemoryKV({ clock: this.clock });
  readonly handles = new Map<string, Cluster>();
  readonly rebalances = new Map<string, RebalanceUpdate[]>();
  readonly logs = new Map<string, MemoryLogger>();

  /** Creates instance `id` with `threads` threads (not joined yet). */
  add(id: string, threads = 1, options: Partial<ClusterOptions> = {}): Cluster {
    const logger = new MemoryLogger();
    const seen: RebalanceUpdate[] = [];
    const handle = createCluster({
      group: 'app',
      env: 'spec',
      id,
      threads,
      store: this.kv,
      intervalMs: I,
      timeoutMs: T,
      clock: this.clock,
      logger,
      onRebalance: (u) => seen.push(u),
      ...options,
    });
    this.handles.set(id, handle);
    this.rebalances.set(id, seen);
    this.logs.set(id, logger);
    return handle;
  }

  /** Creates (when needed) and joins instance `id`, without waiting for membership. */
  join(id: string, threads = 1): Cluster {
    const handle = this.handles.get(id) ?? this.add(id, threads);
    handle.join().catch(() => undefined); // waited for through `until`
    return handle;
  }

  get(id: string): Cluster {
    const handle = this.handles.get(id);
    if (!handle) throw new Error(`no instance ${id}`);
    return handle;
  }

  /** The instances joined and not left. */
  live(): Cluster[] {
    return [...this.handles.values()].filter((h) => h.state === 'joined');
  }

  /**
   * True when every live instance is a member and sees exactly the live instances with their
   * thread counts, so that all agree on one balance.
   */
  converged(): boolean {
    const live = this.live();
    const want = live
      .map((h) => `${h.id}:${h.threads}`)
      .sort()
      .join(',');
    return live.every((h) => h.isMember && h.instances.map((i) => `${i.id}:${i.threads}`).sort().join(',') === want);
  }

  /** Advances in 10 ms steps until `predicate()`; returns the virtual time it took, or throws. */
  async until(predicate: () => boolean, limitMs: number, what = 'condition'): Promise<number> {
    const took = await this.clock.advanceUntil(predicate, limitMs, 10);
    if (took === undefined) throw new Error(`${what} not reached within ${limitMs} ms of virtual time`);
    return took;
  }

  /** Leaves every live instance (and lets virtual time run so that the leaves complete). */
  async leaveAll(): Promise<void> {
    const leaves = this.live().map((h) => h.leave());
    await this.clock.advance(10 * I);
    await Promise.all(leaves);
  }
}

/** `[index, index + threads)` of every live instance as it sees itself. */
export function ranges(handles: readonly Cluster[]): { id: string; from: number; to: number; total: number }[] {
  return handles.map((h) => ({ id: h.id, from: h.index, to: h.index + h.threads, total: h.total }));
}

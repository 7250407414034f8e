import { MemoryKV, type KV } from '@roster/kv-adapter';
import { FaultInjector, MemoryLogger, VirtualClock, type FaultHandle, type KeySelector } from '@roster/testing';
import { createNode, type CreateNodeOptions, type RosterNode } from '../../src/index.js';

/** The timing used by most specs: I = 100 ms, T = 500 ms. */
export const I = 100;
export const T = 500;

/**
 * The store of a spec: a MemoryKV seen by each node through its own `FaultyKV` view (the fault
 * store every test uses), on the spec's virtual clock. `unavailable()` makes keys unavailable,
 * to everyone or to one node, until healed; `ops` counts each node's operations.
 */
export class TestStore {
  readonly clock = new VirtualClock();
  readonly inner = new MemoryKV({ clock: this.clock });
  readonly faults = new FaultInjector({ clock: this.clock, seed: 1, logCapacity: 1_000_000 });

  view(node: string): KV {
    return this.faults.view(this.inner, node);
  }

  /** Makes `keys` unavailable (to `node` only, when given) until the handle is healed. */
  unavailable(keys: KeySelector, node?: string): FaultHandle {
    return this.faults.keyUnavailable(keys, node === undefined ? {} : { node });
  }

  /** Operation counts so far, by node, then by operation. */
  get ops(): Map<string, Map<string, number>> {
    const ops = new Map<string, Map<string, number>>();
    for (const { node, op } of this.faults.operations()) {
      const m = ops.get(node ?? '') ?? new Map<string, number>();
      m.set(op, (m.get(op) ?? 0) + 1);
      ops.set(node ?? '', m);
    }
    return ops;
  }
}

export class Cluster {
  readonly store = new TestStore();
  readonly clock = this.store.clock;
  readonly nodes = new Map<string, RosterNode>();
  readonly logs = new Map<string, MemoryLogger>();

  add(id: string, options: Partial<CreateNodeOptions> = {}): RosterNode {
    const logger = new MemoryLogger();
    const node = createNode({
      store: this.store.view(id),
      group: 'test',
      env: 'spec',
      id,
      intervalMs: I,
      timeoutMs: T,
      clock: this.clock,
      logger,
      ...options,
    });
    this.nodes.set(id, node);
    this.logs.set(id, logger);
    return node;
  }

  async start(...ids: string[]): Promise<void> {
    for (const id of ids) {
      const node = this.nodes.get(id) ?? this.add(id);
      void node.start();
    }
    await this.clock.advance(0);
  }

  live(): RosterNode[] {
    return [...this.nodes.values()].filter((n) => n.state === 'running');
  }

  leaders(): RosterNode[] {
    return this.live().filter((n) => n.isLeader());
  }

  /** True when every live node follows one leader that leads, and every live non-observer is listed by all. */
  converged(): boolean {
    const live = this.live();
    const leaders = live.filter((n) => n.isLeader());
    if (leaders.length !== 1) return false;
    const leader = leaders[0]!;
    const want = live.filter((n) => n.role !== 'observer').map((n) => n.id).sort().join(',');
    return live.every(
      (n) =>
        n.leader?.id === leader.id &&
        n.leader.era === leader.leader?.era &&
        n.memberIds.join(',') === want,
    );
  }

  /** Advances in 10 ms steps until `predicate()`; returns the virtual time it took, or throws. */
  async until(predicate: () => boolean, limitMs: number, what = 'condition'): Promise<number> {
    const took = await this.clock.advanceUntil(predicate, limitMs, 10);
    if (took === undefined) throw new Error(`${what} not reached within ${limitMs} ms of virtual time`);
    return took;
  }

  async stopAll(): Promise<void> {
    const stops = this.live().map((n) => n.stop());
    await this.clock.advance(1000);
    await Promise.all(stops);
  }
}

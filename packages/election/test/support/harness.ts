import { KeyUnavailableError, MemoryKV, type KV } from '@roster/kv-adapter';
import { MemoryLogger, VirtualClock } from '@roster/kv-adapter/testing';
import { createNode, type CreateNodeOptions, type RosterNode } from '../../src/index.js';

/** The timing used by most specs: I = 100 ms, T = 500 ms. */
export const I = 100;
export const T = 500;

/**
 * A KV around MemoryKV where chosen keys are unavailable, per node or for everyone, and every
 * operation is counted. A small stand-in so the protocol specs do not depend on FaultyKV.
 */
export class TestStore {
  readonly clock = new VirtualClock();
  readonly inner = new MemoryKV({ clock: this.clock });
  /** Keys unavailable to everyone. */
  readonly dead = new Set<string>();
  /** Keys unavailable to one node: node id → keys. */
  readonly deadFor = new Map<string, Set<string>>();
  /** Operation counts by node, then by `op`. */
  readonly ops = new Map<string, Map<string, number>>();

  view(node: string): KV {
    const inner = this.inner;
    const isDead = (key: string) => this.dead.has(key) || (this.deadFor.get(node)?.has(key) ?? false);
    const count = (op: string) => {
      const m = this.ops.get(node) ?? new Map<string, number>();
      m.set(op, (m.get(op) ?? 0) + 1);
      this.ops.set(node, m);
    };
    return new Proxy(inner, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function' || prop === 'close') return v;
        return (key: string, ...rest: unknown[]) => {
          count(String(prop));
          if (typeof key === 'string' && isDead(key)) return Promise.reject(new KeyUnavailableError(key));
          return (v as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      },
    });
  }

  totalOps(node: string): number {
    return [...(this.ops.get(node)?.values() ?? [])].reduce((a, b) => a + b, 0);
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
      kv: this.store.view(id),
      cluster: 'test',
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

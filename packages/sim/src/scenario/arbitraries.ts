import type { KVOperation } from '@roster/testing';
import fc from 'fast-check';
import type { Views } from './analysis.js';
import { garbageValue, hugeGarbage } from './garbage.js';
import { DEFAULT_TIMING, DRAWN_KINDS, type Action, type ActionKind, type Scenario, type Step, type Timing } from './Scenario.js';

/** Constraints of {@link scenarioArbitrary}. */
export interface ScenarioConstraints {
  /** Most nodes in a scenario (ids `n1` … `n<max>`); shrinking goes toward one. @defaultValue 5 */
  readonly maxNodes?: number;
  /** Most steps after the initial starts; shrinking goes toward none. @defaultValue 8 */
  readonly maxSteps?: number;
  /**
   * Which faults: `'shared'` only those that hit every node alike, `'per-node'` also faults limited
   * to one node (stale routing among them), random failures and latency. @defaultValue 'per-node'
   */
  readonly views?: Views;
  /** Timings to draw from; the first is where shrinking goes. @defaultValue [I = 1 s, T = 5 s] */
  readonly timings?: readonly Timing[];
  /** Steps happen within this many timeouts of the start. @defaultValue 6 */
  readonly horizonTimeouts?: number;
  /** Kinds of step allowed. @defaultValue every kind but `redeploy` ({@link DRAWN_KINDS}) */
  readonly kinds?: readonly ActionKind[];
  /** Whether a node may be an observer. @defaultValue true */
  readonly observers?: boolean;
}

const PER_NODE_ONLY: readonly ActionKind[] = ['failures', 'latency', 'staleRouting', 'connections'];
const OPS: readonly KVOperation[] = ['get', 'set', 'append', 'take', 'getRange', 'exchange', 'compareAndSet'];

/**
 * An action whose node is an index and whose durations are fractions of the timing, made concrete
 * once the number of nodes and the timing are drawn (so that no `chain` hampers shrinking).
 */
type Draft = { readonly at: number; readonly make: (node: (index: number) => string, t: Timing) => Action };

/** Per-mille of a duration: draws 0 … 1000 × `max`, scaled by `of` when made concrete. */
const permille = (max: number): fc.Arbitrary<number> => fc.nat(Math.round(1000 * max));
const scale = (value: number, of: number): number => Math.round((value * of) / 1000);

/**
 * Scenarios for fast-check: 1 to `maxNodes` nodes started within 2T of the beginning (one may be
 * an observer), then up to `maxSteps` steps at random times: lifecycle (start, stop, resign,
 * crash, restart, pause), faults (keys unavailable, outages, and with per-node views failures,
 * latency and stale routing tables, possibly limited to one node), data loss and garbage. They
 * shrink toward one node, no step, steps at time 0 and short faults. Every scenario is valid
 * whatever its steps: a step that makes no sense when it comes is skipped.
 *
 * @example
 * ```ts
 * fc.assert(fc.asyncProperty(scenarioArbitrary({ views: 'shared' }), async (scenario) => {
 *   const run = await runScenario(scenario);
 *   return checkRun(run).violations.length === 0;
 * }));
 * ```
 */
export function scenarioArbitrary(constraints: ScenarioConstraints = {}): fc.Arbitrary<Scenario> {
  const maxNodes = constraints.maxNodes ?? 5;
  const views = constraints.views ?? 'per-node';
  const timings = constraints.timings ?? [DEFAULT_TIMING];
  const kinds = (constraints.kinds ?? DRAWN_KINDS).filter((k) => views === 'per-node' || !PER_NODE_ONLY.includes(k));
  const horizon = constraints.horizonTimeouts ?? 6;
  return fc
    .record({
      timing: fc.constantFrom(...timings),
      seed: fc.integer({ min: 0, max: 0x7fffffff }),
      count: fc.integer({ min: 1, max: maxNodes }),
      starts: fc.array(permille(2), { minLength: maxNodes, maxLength: maxNodes }),
      observer: constraints.observers === false ? fc.constant(null) : fc.option(fc.nat(maxNodes - 1), { freq: 4 }),
      drafts: fc.array(draftArbitrary(maxNodes, views, kinds, horizon), { maxLength: constraints.maxSteps ?? 8 }),
    })
    .map(({ timing, seed, count, starts, observer, drafts }): Scenario => {
      const T = timing.timeoutMs;
      const id = (index: number) => `n${(index % count) + 1}`;
      const initial: Step[] = starts.slice(0, count).map((at, i) => ({
        at: scale(at, T),
        do: 'start',
        node: `n${i + 1}`,
        ...(observer === i && count > 1 ? { observer: true } : {}),
      }));
      const later = drafts.map((d): Step => ({ ...d.make(id, timing), at: scale(d.at, T) }));
      return { seed, timing, steps: sortSteps([...initial, ...later]) };
    });
}

/** `steps` in time order, keeping the given order among steps at the same time. */
export function sortSteps(steps: readonly Step[]): Step[] {
  return steps
    .map((s, i) => [s, i] as const)
    .sort((a, b) => a[0].at - b[0].at || a[1] - b[1])
    .map(([s]) => s);
}

type Ix = (index: number) => string;

/** A nonce of a key, or `*` (every nonce of the window). */
const nonceRef = fc.oneof(fc.constant('*'), fc.nat(3).map(String));

/**
 * A stale routing table of a node drawn among `maxNodes`, for up to 3T, hiding the `leader` key
 * (as often as all the others: there it can do most harm), `join` or `era` keys, or another
 * node's id key (never its own: see the action).
 */
function staleRoutingArbitrary(maxNodes: number): fc.Arbitrary<Draft['make']> {
  const keys = fc.oneof(
    { weight: 3, arbitrary: nonceRef.map((n) => (_: Ix, __: number) => `leader ${n}`) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom('join', 'era'), nonceRef).map(([k, n]) => (_: Ix, __: number) => `${k} ${n}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.integer({ min: 1, max: Math.max(1, maxNodes - 1) }), nonceRef).map(([d, n]) => (ix: Ix, i: number) => {
        // Another node's id key; with a single node there is none, and its leader key stands in.
        const other = [ix(i + d), ix(i + 1)].find((id) => id !== ix(i));
        return other === undefined ? `leader ${n}` : `id/${other} ${n}`;
      }),
    },
  );
  return fc.tuple(fc.nat(maxNodes - 1), keys, permille(3)).map(([i, k, ms]) => (ix, t) => ({ do: 'staleRouting', node: ix(i), keys: k(ix, i), forMs: scale(ms, t.timeoutMs) }));
}

/** Constraints of {@link routingScenarioArbitrary}. */
export interface RoutingScenarioConstraints {
  /** Fewest nodes. @defaultValue 3 */
  readonly minNodes?: number;
  /** Most nodes. @defaultValue 5 */
  readonly maxNodes?: number;
  /** Most stale routing tables; there is at least one. @defaultValue 4 */
  readonly maxFaults?: number;
  /** Timings to draw from; the first is where shrinking goes. @defaultValue [I = 1 s, T = 5 s] */
  readonly timings?: readonly Timing[];
}

/**
 * Pure routing scenarios (see the `routing-tolerance` property): `minNodes` to `maxNodes` nodes
 * started within I of the beginning, so that the cluster has converged by 3T; then 1 to
 * `maxFaults` stale routing tables within the next 3T, each of a random node (the leader too), for
 * up to 3T. They shrink toward fewer nodes and faults, earlier and shorter.
 */
export function routingScenarioArbitrary(constraints: RoutingScenarioConstraints = {}): fc.Arbitrary<Scenario> {
  const maxNodes = constraints.maxNodes ?? 5;
  return fc
    .record({
      timing: fc.constantFrom(...(constraints.timings ?? [DEFAULT_TIMING])),
      seed: fc.integer({ min: 0, max: 0x7fffffff }),
      count: fc.integer({ min: constraints.minNodes ?? 3, max: maxNodes }),
      starts: fc.array(permille(1), { minLength: maxNodes, maxLength: maxNodes }),
      faults: fc.array(fc.tuple(permille(3), staleRoutingArbitrary(maxNodes)), { minLength: 1, maxLength: constraints.maxFaults ?? 4 }),
    })
    .map(({ timing, seed, count, starts, faults }): Scenario => {
      const id = (index: number) => `n${(index % count) + 1}`;
      const initial: Step[] = starts.slice(0, count).map((at, i) => ({ at: scale(at, timing.intervalMs), do: 'start', node: `n${i + 1}` }));
      const later = faults.map(([at, make]): Step => ({ ...make(id, timing), at: 3 * timing.timeoutMs + scale(at, timing.timeoutMs) }));
      return { seed, timing, steps: sortSteps([...initial, ...later]) };
    });
}

function draftArbitrary(maxNodes: number, views: Views, kinds: readonly ActionKind[], horizon: number): fc.Arbitrary<Draft> {
  const node = fc.nat(maxNodes - 1);
  const scope = views === 'per-node' ? fc.option(node, { freq: 2 }) : fc.constant(null);
  const scoped = (i: number | null, ix: Ix) => (i === null ? {} : { node: ix(i) });
  /** Fault windows: up to 3T. */
  const forT = permille(3);
  /** Stalls: mostly none, else up to I. */
  const stall = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: permille(1) });
  const nonce = nonceRef;
  const keyRef = fc.oneof(
    // The era key too: a candidate that cannot read it (nor the leader's nonce) claims an era that
    // is already held, and the nonce decides between the two leaderships of that era.
    fc.tuple(fc.constantFrom('leader', 'join', 'era'), nonce).map(([k, n]) => (_: Ix) => `${k} ${n}`),
    fc.tuple(node, nonce).map(([i, n]) => (ix: Ix) => `id/${ix(i)} ${n}`),
  );
  const byKind: Record<ActionKind, fc.Arbitrary<Draft['make']>> = {
    start: node.map((i) => (ix) => ({ do: 'start', node: ix(i) })),
    stop: node.map((i) => (ix) => ({ do: 'stop', node: ix(i) })),
    // Mostly the leader, whoever it is then: a node drawn at random rarely leads.
    resign: fc.option(node, { freq: 3 }).map((i) => (ix) => (i === null ? { do: 'resign' } : { do: 'resign', node: ix(i) })),
    crash: node.map((i) => (ix) => ({ do: 'crash', node: ix(i) })),
    restart: node.map((i) => (ix) => ({ do: 'restart', node: ix(i) })),
    redeploy: fc.tuple(fc.option(node, { freq: 2 }), fc.integer({ min: 0, max: 3 }), permille(1)).map(([i, p, down]) => (ix, t) => ({
      do: 'redeploy',
      ...(i === null ? {} : { node: ix(i) }),
      priority: p,
      ...(down ? { downMs: scale(down, t.timeoutMs) } : {}),
    })),
    pause: fc.tuple(node, forT).map(([i, ms]) => (ix, t) => ({ do: 'pause', node: ix(i), forMs: t.intervalMs + scale(ms, t.timeoutMs) })),
    keyUnavailable: fc.tuple(keyRef, scope, forT, stall).map(([k, s, ms, st]) => (ix, t) => ({
      do: 'keyUnavailable',
      keys: k(ix),
      forMs: scale(ms, t.timeoutMs),
      ...(st ? { stallMs: scale(st, t.intervalMs) } : {}),
      ...scoped(s, ix),
    })),
    keyRollback: fc.tuple(keyRef, forT, fc.boolean(), fc.option(forT)).map(([k, ms, hang, flaky]) => (ix, t) => ({
      do: 'keyRollback',
      keys: k(ix),
      forMs: scale(ms, t.timeoutMs),
      ...(hang ? { hang: true } : {}),
      ...(flaky !== null ? { flakyMs: scale(flaky, t.intervalMs) } : {}),
    })),
    staleRouting: staleRoutingArbitrary(maxNodes),
    // Half the outages end erratically: operations fail at random for up to 3I after the return,
    // as a store back from crash recovery, or whose clients are reconnecting, answers.
    storeOutage: fc.tuple(scope, forT, stall, fc.option(forT, { freq: 2 })).map(([s, ms, st, flaky]) => (ix, t) => ({
      do: 'storeOutage',
      forMs: scale(ms, t.timeoutMs),
      ...(st ? { stallMs: scale(st, t.intervalMs) } : {}),
      ...(flaky ? { flakyMs: scale(flaky, t.intervalMs) } : {}),
      ...scoped(s, ix),
    })),
    failures: fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.boolean(), fc.option(fc.subarray([...OPS], { minLength: 1 })), fc.option(keyRef), scope, forT)
      .map(([p, after, ops, k, s, ms]) => (ix, t) => ({
        do: 'failures',
        probability: p / 10,
        forMs: scale(ms, t.timeoutMs),
        ...(after ? { after } : {}),
        ...(ops ? { ops } : {}),
        ...(k ? { keys: k(ix) } : {}),
        ...scoped(s, ix),
      })),
    latency: fc
      .tuple(permille(1), permille(2), fc.boolean(), fc.option(keyRef), scope, forT)
      .map(([min, extra, slowReply, k, s, ms]) => (ix, t) => ({
        do: 'latency',
        minMs: scale(min, t.intervalMs),
        maxMs: scale(min, t.intervalMs) + scale(extra, t.intervalMs),
        forMs: scale(ms, t.timeoutMs),
        ...(slowReply ? { mode: 'apply-then-delay' as const } : {}),
        ...(k ? { keys: k(ix) } : {}),
        ...scoped(s, ix),
      })),
    // An overloaded store: from half to three times what the largest group asks of it when healthy
    // (about 3.5 commands per member per interval), for up to 3T, its queue holding up to T.
    capacity: fc.tuple(fc.integer({ min: 5, max: 30 }), forT).map(([k, ms]) => (_, t) => ({
      do: 'capacity',
      opsPerSecond: Math.round((k / 10) * maxNodes * 3.5 * (1000 / t.intervalMs)),
      forMs: scale(ms, t.timeoutMs),
      maxQueueMs: t.timeoutMs,
    })),
    // A busy client: a pool of 1 to 4 connections, each operation holding one up to I/10, for up to
    // 3T; one node's own pool, or one all share. A burst larger than the pool serves within its wait
    // (2τ) loses its oldest waiters.
    connections: fc.tuple(fc.integer({ min: 1, max: 4 }), permille(0.1), scope, forT).map(([size, service, s, ms]) => (ix, t) => ({
      do: 'connections',
      size,
      serviceMs: Math.max(1, scale(service, t.intervalMs)),
      forMs: scale(ms, t.timeoutMs),
      ...scoped(s, ix),
    })),
    flush: fc.constant(() => ({ do: 'flush' })),
    garbage: fc.oneof(
      fc.tuple(fc.nat(3), garbageValue('leader')).map(([n, v]) => (_: Ix) => ({ do: 'garbage' as const, key: `leader ${n}`, value: v })),
      // Often at every nonce, under whatever leads then (alive, dead, or claiming).
      fc.tuple(fc.constantFrom('leader *', 'leader 0'), garbageValue('leader')).map(([k, v]) => (_: Ix) => ({ do: 'garbage' as const, key: k, value: v })),
      fc.tuple(fc.constantFrom('leader *', 'leader 0'), hugeGarbage('leader')).map(([k, g]) => (_: Ix) => ({ do: 'garbage' as const, key: k, ...g })),
      fc.tuple(fc.constantFrom('join 0', 'id/n1 0'), hugeGarbage('join')).map(([k, g]) => (_: Ix) => ({ do: 'garbage' as const, key: k, ...g })),
      fc.tuple(fc.nat(3), garbageValue('era')).map(([n, v]) => (_: Ix) => ({ do: 'garbage' as const, key: `era ${n}`, value: v })),
      fc.tuple(fc.nat(3), garbageValue('join')).map(([n, v]) => (_: Ix) => ({ do: 'garbage' as const, key: `join ${n}`, value: v })),
      fc.tuple(node, fc.nat(3), garbageValue('id')).map(([i, n, v]) => (ix: Ix) => ({ do: 'garbage' as const, key: `id/${ix(i)} ${n}`, value: v })),
    ),
  };
  const action = fc.oneof(...kinds.map((k) => byKind[k]));
  return fc.tuple(permille(horizon), action).map(([at, make]) => ({ at, make }));
}

/** Constraints of {@link rollingScenarioArbitrary}. */
export interface RollingScenarioConstraints {
  /** Fewest nodes. @defaultValue 2 */
  readonly minNodes?: number;
  /** Most nodes. @defaultValue 5 */
  readonly maxNodes?: number;
  /** Timings to draw from; the first is where shrinking goes. @defaultValue [I = 1 s, T = 5 s] */
  readonly timings?: readonly Timing[];
}

/**
 * Rolling deploys (see the `preemption` property): `minNodes` to `maxNodes` nodes of one priority
 * (0 or drawn) started within I of the beginning, so that the cluster has converged by 3T; then
 * one `redeploy` per node onto a higher priority, in an order drawn without regard to who leads
 * (as a deploy tool that knows nothing of leadership), one at a time: each node is down for up to
 * 2T, and the next is taken down 2T to 4T after it is back (a deploy waits for each node to be
 * ready). They shrink toward fewer nodes, the order n1, n2, …, no downtime and the shortest waits.
 */
export function rollingScenarioArbitrary(constraints: RollingScenarioConstraints = {}): fc.Arbitrary<Scenario> {
  const maxNodes = constraints.maxNodes ?? 5;
  return fc
    .record({
      timing: fc.constantFrom(...(constraints.timings ?? [DEFAULT_TIMING])),
      seed: fc.integer({ min: 0, max: 0x7fffffff }),
      count: fc.integer({ min: constraints.minNodes ?? 2, max: maxNodes }),
      from: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 1_004_002 }) }),
      step: fc.integer({ min: 1, max: 1_000_000 }),
      starts: fc.array(permille(1), { minLength: maxNodes, maxLength: maxNodes }),
      // The order: each node's place, as a key to sort by (shrinks toward the ids' order).
      order: fc.array(fc.nat(maxNodes), { minLength: maxNodes, maxLength: maxNodes }),
      downs: fc.array(permille(2), { minLength: maxNodes, maxLength: maxNodes }),
      waits: fc.array(permille(2), { minLength: maxNodes, maxLength: maxNodes }),
    })
    .map(({ timing, seed, count, from, step, starts, order, downs, waits }): Scenario => {
      const { intervalMs: I, timeoutMs: T } = timing;
      const initial: Step[] = starts.slice(0, count).map((at, i) => ({ at: scale(at, I), do: 'start', node: `n${i + 1}`, ...(from !== 0 && { priority: from }) }));
      const later: Step[] = [];
      let at = 3 * T;
      const nodes = Array.from({ length: count }, (_, i) => i).sort((a, b) => order[a]! - order[b]! || a - b);
      for (let i = 0; i < count; i++) {
        const downMs = scale(downs[i]!, T);
        later.push({ at, do: 'redeploy', node: `n${nodes[i]! + 1}`, priority: from + step, ...(downMs > 0 && { downMs }) });
        at += downMs + 2 * T + scale(waits[i]!, T);
      }
      return { seed, timing, steps: [...sortSteps(initial), ...later] };
    });
}

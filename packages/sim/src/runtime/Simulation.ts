import { createNode, type Role, type RoleUpdate, type RosterUpdate } from '@roster/election';
import { parseBroadcast, parseMember } from '@roster/follower';
import { MemoryKV, Namespace, type KV, type Logger } from '@roster/kv-adapter';
import { FaultInjector, VirtualClock } from '@roster/testing';
import { History, type Incarnation } from '../history/History.js';
import type { Mutation, MutationContext } from '../mutations/Mutation.js';
import { convergenceBound, losesData, quietAt, runLength, viewsOf, type Views } from '../scenario/analysis.js';
import { concreteKeys, keySelector } from '../scenario/keys.js';
import type { NodeId, Scenario, Step } from '../scenario/Scenario.js';
import { recordIssues } from './issueRecorder.js';
import { meterKV, type CommandCost } from './costMeter.js';
import { recordOverwrites } from './overwriteRecorder.js';
import { PauseGate } from './PauseGate.js';
import type { SimNode } from './SimNode.js';

/** Options of {@link runScenario}. */
export interface SimulationOptions {
  /** A deliberately broken variant of the protocol to run instead of the real one. */
  readonly mutation?: Mutation;
  /** Keep every KV operation in the history (for printing a failing run). @defaultValue true */
  readonly recordOperations?: boolean;
  /** The compound keys' nonce window. @defaultValue 4 */
  readonly nonceWindow?: number;
}

/** A finished run: the scenario, what happened, and the figures the properties need. */
export interface Run {
  readonly scenario: Scenario;
  readonly history: History;
  /** From this time on no fault acts (see `quietAt`). */
  readonly quietAt: number;
  /** The convergence bound checked after {@link quietAt} (see `convergenceBound`). */
  readonly bound: number;
  readonly views: Views;
  /** True when the store loses writes in this run (a flush, or garbage over a leader-key value). */
  readonly dataLoss: boolean;
  /** The cluster's key prefix. */
  readonly prefix: string;
  /** The mutation run, if any. */
  readonly mutation: string | undefined;
  /** Every store command the nodes issued, with its bytes (see `costPerMember`). */
  readonly costs: readonly CommandCost[];
}

/** Most node timer callbacks one virtual instant may run before the run is declared a livelock. */
export const SPIN_LIMIT = 5000;

/** The cluster every simulated node joins. */
export const SIM_NAMESPACE = new Namespace('sim', 'chaos');

/**
 * Runs `scenario` to its end: real `RosterNode`s (`createNode` from `@roster/election`) on one
 * `VirtualClock`, each through its own `FaultyKV` view of one `MemoryKV`, with the scenario's
 * steps applied at their times. Deterministic: the same scenario gives the same history.
 *
 * @example
 * ```ts
 * const run = await runScenario({
 *   seed: 1,
 *   timing: { intervalMs: 1000, timeoutMs: 5000 },
 *   steps: [{ at: 0, do: 'start', node: 'n1' }, { at: 0, do: 'start', node: 'n2' }],
 * });
 * console.log(formatHistory(run.history));
 * ```
 */
export async function runScenario(scenario: Scenario, options: SimulationOptions = {}): Promise<Run> {
  return new Simulation(scenario, options).run();
}

interface Live {
  readonly incarnation: Incarnation;
  readonly node: SimNode;
  readonly gate: PauseGate;
  unwatch: () => void;
  /** The role its last `role` update told of. */
  shown: Role | undefined;
  /** Its role in the protocol (see {@link protocolRole}). */
  role: Role | undefined;
  /** The priority it was started with. */
  readonly priority: number;
}

class Simulation {
  readonly #scenario: Scenario;
  readonly #options: SimulationOptions;
  readonly #history = new History();
  readonly #costs: CommandCost[] = [];
  readonly #clock: VirtualClock;
  readonly #store: MemoryKV;
  /** The store as the nodes' views reach it: {@link #store} with leader-key overwrites recorded. */
  readonly #shared: KV;
  readonly #faults: FaultInjector;
  readonly #prefix = SIM_NAMESPACE.prefix;
  readonly #window: number;
  /** The latest incarnation of each id. */
  readonly #current = new Map<NodeId, Live>();
  readonly #all: Live[] = [];
  /** Node timer callbacks run at the current virtual instant (the spin guard). */
  #firedAt = -1;
  #fired = 0;
  #spinning = false;

  constructor(scenario: Scenario, options: SimulationOptions) {
    this.#scenario = scenario;
    this.#options = options;
    this.#window = options.nonceWindow ?? 4;
    this.#clock = new VirtualClock({
      onTimerError: (error) => this.#history.add({ at: this.#clock.now(), kind: 'anomaly', message: `a timer callback threw: ${String(error)}` }),
    });
    this.#store = new MemoryKV({ clock: this.#clock });
    this.#shared = recordOverwrites(
      this.#store,
      (key) => key.startsWith(`${this.#prefix}leader `),
      (key, previous, value) => this.#history.overwrites.push({ at: this.#clock.now(), key: key.slice(this.#prefix.length), previous, value }),
    );
    const record = options.recordOperations ?? true;
    this.#faults = new FaultInjector({
      clock: this.#clock,
      seed: scenario.seed,
      logCapacity: 0,
      ...(record ? { onOperation: (op) => this.#history.operations.push(op) } : {}),
    });
  }

  async run(): Promise<Run> {
    const clock = this.#clock;
    for (const step of this.#scenario.steps) clock.setTimer(() => this.#apply(step), step.at);
    const end = runLength(this.#scenario);
    for (;;) {
      const next = clock.nextTimerAt();
      if (next === undefined || next > end) break;
      await clock.advanceTo(next);
      this.#sample();
    }
    await clock.advanceTo(end);
    this.#sample();
    this.#history.end = end;
    for (const live of this.#all) {
      live.unwatch();
      live.node.destroy();
    }
    return {
      scenario: this.#scenario,
      history: this.#history,
      quietAt: quietAt(this.#scenario),
      bound: convergenceBound(this.#scenario.timing),
      views: viewsOf(this.#scenario),
      dataLoss: losesData(this.#scenario),
      prefix: this.#prefix,
      mutation: this.#options.mutation?.name,
      costs: this.#costs,
    };
  }

  // ─── Steps ───────────────────────────────────────────────────────────────────────────────────

  #apply(step: Step): void {
    const skipped = this.#perform(step);
    this.#history.add({ at: this.#clock.now(), kind: 'step', step, ...(skipped === undefined ? {} : { skipped }) });
  }

  /** Applies `step`; returns why it was skipped, if it was. */
  #perform(step: Step): string | undefined {
    const faults = this.#faults;
    const scope = (node: NodeId | undefined) => (node === undefined ? {} : { node });
    const keys = (ref: string | undefined) => (ref === undefined ? {} : { keys: keySelector(this.#prefix, ref) });
    switch (step.do) {
      case 'start': {
        if (this.#running(step.node)) return 'already running';
        this.#start(step.node, step.observer ?? false, step.priority ?? 0);
        return undefined;
      }
      case 'redeploy': {
        const live = step.node === undefined ? this.#deployPick(step.priority) : this.#current.get(step.node);
        if (!live || live.node.state !== 'running') return step.node === undefined ? 'no node left to redeploy' : 'not running';
        const { id, observer } = live.incarnation;
        live.gate.run(() => {
          live.node.stop().then(
            () => {
              this.#ended(live, 'stopped');
              this.#clock.setTimer(() => {
                if (!this.#running(id)) this.#start(id, observer, step.priority);
              }, step.downMs ?? 0);
            },
            (error: unknown) => this.#history.add({ at: this.#clock.now(), kind: 'anomaly', node: live.incarnation.label, message: `stop() rejected: ${String(error)}` }),
          );
        });
        return undefined;
      }
      case 'stop': {
        const live = this.#current.get(step.node);
        if (!live || live.node.state !== 'running') return 'not running';
        live.gate.run(() => {
          live.node.stop().then(
            () => this.#ended(live, 'stopped'),
            (error: unknown) => this.#history.add({ at: this.#clock.now(), kind: 'anomaly', node: live.incarnation.label, message: `stop() rejected: ${String(error)}` }),
          );
        });
        return undefined;
      }
      case 'resign': {
        const leading = [...this.#current.values()].filter((l) => l.node.state === 'running' && l.role === 'leader' && (step.node === undefined || l.incarnation.id === step.node));
        if (leading.length === 0) return step.node === undefined ? 'no leader' : this.#running(step.node) ? 'not leader' : 'not running';
        for (const live of leading) {
          live.gate.run(() => {
            live.node.resign().catch((error: unknown) => this.#history.add({ at: this.#clock.now(), kind: 'anomaly', node: live.incarnation.label, message: `resign() rejected: ${String(error)}` }));
          });
        }
        return undefined;
      }
      case 'crash': {
        if (!this.#running(step.node)) return 'not running';
        this.#crash(this.#current.get(step.node)!);
        return undefined;
      }
      case 'restart': {
        const live = this.#current.get(step.node);
        if (live && this.#running(step.node)) this.#crash(live);
        this.#start(step.node, live?.incarnation.observer ?? false, live?.priority ?? 0);
        return undefined;
      }
      case 'pause': {
        const live = this.#current.get(step.node);
        if (!live || !this.#running(step.node)) return 'not running';
        if (live.gate.paused) return 'already paused';
        live.gate.pause();
        this.#clock.setTimer(() => {
          live.gate.resume();
          this.#history.add({ at: this.#clock.now(), kind: 'resumed', node: live.incarnation.label });
        }, step.forMs);
        return undefined;
      }
      case 'keyUnavailable':
        faults.keyUnavailable(keySelector(this.#prefix, step.keys), {
          forMs: step.forMs,
          stallMs: step.stallMs ?? 0,
          ...(step.hang === true && { hang: true }),
          ...scope(step.node),
        });
        return undefined;
      case 'staleRouting':
        // The node's client routes the keys' commands to the wrong shard: to it alone, unavailable.
        faults.keyUnavailable(keySelector(this.#prefix, step.keys), { forMs: step.forMs, node: step.node });
        return undefined;
      case 'keyRollback':
        faults.keyRollback(keySelector(this.#prefix, step.keys), this.#store, {
          forMs: step.forMs,
          ...(step.hang === true && { hang: true }),
          ...(step.flakyMs !== undefined && { flakyMs: step.flakyMs }),
        });
        return undefined;
      case 'storeOutage': {
        const stallMs = step.stallMs ?? 0;
        faults.storeOutage({ forMs: step.forMs, stallMs, ...scope(step.node) });
        const flakyMs = step.flakyMs ?? 0;
        if (flakyMs > 0) this.#clock.setTimer(() => void faults.failures({ probability: 0.5, forMs: flakyMs, ...scope(step.node) }), step.forMs + stallMs);
        return undefined;
      }
      case 'failures':
        faults.failures({
          probability: step.probability,
          forMs: step.forMs,
          after: step.after ?? false,
          ...(step.ops === undefined ? {} : { ops: step.ops }),
          ...keys(step.keys),
          ...scope(step.node),
        });
        return undefined;
      case 'latency':
        faults.latency({
          minMs: step.minMs,
          maxMs: step.maxMs,
          forMs: step.forMs,
          mode: step.mode ?? 'delay-then-apply',
          ...keys(step.keys),
          ...scope(step.node),
        });
        return undefined;
      case 'capacity':
        faults.capacity({ opsPerSecond: step.opsPerSecond, forMs: step.forMs, maxQueueMs: step.maxQueueMs });
        return undefined;
      case 'connections':
        faults.connections({ size: step.size, serviceMs: step.serviceMs, forMs: step.forMs, maxWaitMs: step.maxWaitMs ?? 2 * (this.#scenario.timing.operationTimeoutMs ?? this.#scenario.timing.intervalMs / 2), ...scope(step.node) });
        return undefined;
      case 'flush':
        this.#store.flushAll();
        return undefined;
      case 'garbage': {
        const value = step.repeat === undefined ? step.value : step.value.repeat(step.repeat);
        for (const key of concreteKeys(this.#prefix, step.key, this.#window)) void this.#store.set(key, value).catch(() => undefined);
        return undefined;
      }
    }
  }

  /**
   * The node a deploy tool restarts next onto `priority`: a running node of lower priority, one
   * that does not lead when there is one, the lowest id first.
   */
  #deployPick(priority: number): Live | undefined {
    const behind = [...this.#current.values()]
      .filter((l) => l.node.state === 'running' && l.priority < priority)
      .sort((a, b) => (a.incarnation.id < b.incarnation.id ? -1 : a.incarnation.id > b.incarnation.id ? 1 : 0));
    return behind.find((l) => l.role !== 'leader') ?? behind[0];
  }

  #running(id: NodeId): boolean {
    const state = this.#current.get(id)?.node.state;
    return state === 'running' || state === 'stopping';
  }

  #start(id: NodeId, observer: boolean, priority: number): void {
    const clock = this.#clock;
    const count = this.#all.filter((l) => l.incarnation.id === id).length + 1;
    const incarnation: Incarnation = { label: count === 1 ? id : `${id}#${count}`, id, observer, startedAt: clock.now(), ...(priority !== 0 && { priority }) };
    const gate = new PauseGate(clock, () => this.#admit());
    const { intervalMs, timeoutMs, settleMs, operationTimeoutMs, renewDeadlineMs } = this.#scenario.timing;
    const mutation = this.#options.mutation;
    // The role in the protocol, from the node's updates (reading `node.role` may lapse a lease: see protocolRole).
    let role: Role | undefined;
    const context: MutationContext = { id, clock: gate.clock, prefix: this.#prefix, intervalMs, timeoutMs, window: this.#window, role: () => role };
    let kv: KV = meterKV(this.#faults.view(this.#shared, id), clock, (cost) => this.#costs.push({ ...cost, node: id, incarnation: incarnation.label, role }));
    if (mutation?.wrapKV) kv = mutation.wrapKV(kv, context);
    kv = gate.wrap(recordIssues(kv, (op, key, value) => this.#issued(incarnation, op, key, value)));
    const logger = recordingLogger((level, message) => this.#history.logs.push({ at: clock.now(), node: incarnation.label, level, message }));
    const roster = createNode({ store: kv, group: SIM_NAMESPACE.group, env: SIM_NAMESPACE.env, id, intervalMs, timeoutMs, ...(settleMs !== undefined && { settleMs }), ...(operationTimeoutMs !== undefined && { operationTimeoutMs }), ...(renewDeadlineMs !== undefined && { renewDeadlineMs }), observer, nonceWindow: this.#window, clock: gate.clock, logger, ...(priority !== 0 && { priority }) });
    const node = mutation?.wrapNode ? mutation.wrapNode(roster, kv, context) : roster;
    const live: Live = { incarnation, node, gate, unwatch: () => undefined, shown: undefined, role: undefined, priority };
    this.#history.incarnations.push(incarnation);
    this.#current.set(id, live);
    this.#all.push(live);
    live.unwatch = node.watch((update) => {
      if (update.type === 'role') {
        role = protocolRole(update, role);
        live.role = role;
        live.shown = update.role;
      }
      this.#onUpdate(live, update);
    });
    node.start().catch((error: unknown) => this.#history.add({ at: clock.now(), kind: 'anomaly', node: incarnation.label, message: `start() rejected: ${String(error)}` }));
  }

  /**
   * Lets a node timer callback run unless the nodes have run more than {@link SPIN_LIMIT} of them
   * at this virtual instant: time would never move on (a livelock), so the run stops there.
   */
  #admit(): boolean {
    const now = this.#clock.now();
    if (now !== this.#firedAt) {
      this.#firedAt = now;
      this.#fired = 0;
      this.#spinning = false;
    }
    if (++this.#fired <= SPIN_LIMIT) return true;
    if (!this.#spinning) {
      this.#spinning = true;
      this.#history.add({ at: now, kind: 'anomaly', message: `livelock: the nodes ran more than ${SPIN_LIMIT} timer callbacks at this instant without time moving on; the run stops here` });
    }
    return false;
  }

  #crash(live: Live): void {
    live.node.destroy();
    this.#ended(live, 'crashed');
  }

  #ended(live: Live, how: 'crashed' | 'stopped'): void {
    if (live.incarnation.end !== undefined) return;
    live.incarnation.end = how;
    live.incarnation.endedAt = this.#clock.now();
    if (how === 'stopped') this.#history.add({ at: this.#clock.now(), kind: 'stopped', node: live.incarnation.label });
  }

  // ─── Recording ───────────────────────────────────────────────────────────────────────────────

  #onUpdate(live: Live, update: RosterUpdate): void {
    const at = this.#clock.now();
    this.#history.add({ at, kind: 'update', node: live.incarnation.label, update });
    if (update.type === 'role' && update.role === 'leader') {
      // The only moment a new overlap can begin with a zero length: check the others right now.
      const others = this.#all.filter((l) => l !== live && l.node.isLeader()).map((l) => l.incarnation.label);
      if (others.length > 0 && live.node.isLeader()) this.#history.overlaps.push({ at, leaders: [live.incarnation.label, ...others] });
    }
  }

  /** Notes claims and join requests as nodes issue them. */
  #issued(incarnation: Incarnation, op: string, key: string, value: string | undefined): void {
    if (value === undefined || !key.startsWith(this.#prefix)) return;
    const at = this.#clock.now();
    const name = key.slice(this.#prefix.length);
    if (op === 'compareAndSet' && name.startsWith('leader ')) {
      const parsed = parseBroadcast(value);
      if (parsed.ok && parsed.broadcast.version === 0 && parsed.broadcast.id === incarnation.id) {
        const { era, nonce } = parsed.broadcast;
        this.#history.claims.push({ at, node: incarnation.label, id: incarnation.id, era, nonce });
      }
    } else if (op === 'append' && name.startsWith('join ')) {
      for (const token of value.split(' ')) {
        if (parseMember(token)?.id === incarnation.id) this.#history.joins.push({ at, node: incarnation.label, id: incarnation.id });
      }
    }
  }

  #sample(): void {
    // What users were told, taken before anything is asked of the nodes (asking lapses an overdue
    // lease); a paused node can tell nothing, and is not held to it.
    const told = new Map(this.#all.map((l) => [l, l.shown]));
    const leaders = this.#all.filter((l) => l.node.isLeader()).map((l) => l.incarnation.label);
    for (const [live, shown] of told) {
      if (live.gate.paused || live.incarnation.end !== undefined || live.node.state !== 'running') continue;
      const isLeader = leaders.includes(live.incarnation.label);
      if ((shown === 'leader') !== isLeader) this.#history.misreports.push({ at: this.#clock.now(), node: live.incarnation.label, shown, isLeader });
    }
    this.#history.sample(this.#clock.now(), leaders, this.#converged());
  }

  /**
   * True when every live node follows one leader that leads (same id, era and nonce), and every
   * live node's member list is exactly the live nodes that join (observers excluded).
   */
  #converged(): boolean {
    const live = [...this.#current.values()].filter((l) => l.node.state === 'running');
    const members = live.filter((l) => !l.incarnation.observer).map((l) => l.incarnation.id).sort();
    if (members.length === 0) return true;
    const leaders = live.filter((l) => l.node.isLeader());
    if (leaders.length !== 1) return false;
    const leader = leaders[0]!.node.leader;
    if (leader === undefined) return false;
    const want = members.join(' ');
    return live.every((l) => {
      const seen = l.node.leader;
      return seen !== undefined && seen.id === leader.id && seen.era === leader.era && seen.nonce === leader.nonce && l.node.memberIds.join(' ') === want;
    });
  }
}

/**
 * The role a node has in the protocol after `update`, `was` before it: the role shown, except that
 * a leader whose lease lapsed (shown as `candidate`, from `leader`) is still leader until it is
 * re-validated or leaves leadership. Derived from updates, so that asking does not change the node.
 */
export function protocolRole(update: RoleUpdate, was: Role | undefined): Role {
  const lapsed = update.role === 'candidate' && (update.reason === 'lease-expired' || update.reason === 'store-unavailable');
  return lapsed && (update.previous === 'leader' || was === 'leader') ? 'leader' : update.role;
}

/** A logger that hands every line but debug ones to `record`. */
function recordingLogger(record: (level: 'info' | 'warn' | 'error', message: string) => void): Logger {
  return {
    debug: () => undefined,
    info: (_fields, message) => record('info', message ?? ''),
    warn: (_fields, message) => record('warn', message ?? ''),
    error: (_fields, message) => record('error', message ?? ''),
  };
}

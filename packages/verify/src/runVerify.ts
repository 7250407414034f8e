/**
 * `runVerify()`: the nemesis on real processes, then the checker. N nodes each reach the store
 * (and the run's fenced register) through a link the nemesis controls; a seeded schedule cuts,
 * resets, slows and flaps those links, kills, pauses and terminates the processes and, when the
 * tool started the store, kills, freezes and restarts it; every line the nodes print is recorded
 * with the time it was read; the history is checked against the rules of `checkHistory`.
 *
 * Safe to point at a production store: everything lives under a group of its own
 * (`roster-verify-<random>`, deleted afterwards), the request rate is bounded (each node makes
 * about 3 operations per interval, the runner one read a second), and nothing outside that
 * group is read or written.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { connectStore, Namespace, type KV } from '@roster/kv-adapter';
import { checkHistory, type CheckReport } from './checker/checkHistory.js';
import type { CheckOptions } from './checker/CheckOptions.js';
import type { FaultWindow, History, HistoryTiming, Observation } from './history/History.js';
import { deleteRunKeys } from './nemesis/cleanup.js';
import { FaultProxy } from './nemesis/FaultProxy.js';
import { FencedRegister } from './nemesis/FencedRegister.js';
import { defaultNodeCommand, expandCommand, NodeSlot } from './nemesis/NodeLauncher.js';
import { adviseTiming, RoundTripSampler, type RoundTripStats, type TimingAdvice } from './nemesis/RoundTrip.js';
import { buildSchedule, CUT_FAULTS, LINK_FAULTS, PROCESS_FAULTS, STORE_FAULTS, type FaultKind, type PlannedFault } from './nemesis/Schedule.js';
import type { StoreControl } from './nemesis/StoreControl.js';
import { VerifyError } from './VerifyError.js';

/** Options of {@link runVerify}. */
export interface VerifyOptions {
  /** The store URL, as `roster node --store` takes it. */
  readonly store: string;
  /** How many nodes. @defaultValue 3 */
  readonly nodes?: number;
  /** How long the nemesis runs, ms (measuring the store and cleaning up come on top). @defaultValue 60000 */
  readonly durationMs?: number;
  /** The schedule's seed; the same seed gives the same schedule. @defaultValue a random one (reported) */
  readonly seed?: number;
  /** The nodes' interval I. @defaultValue the one advised for the measured round trip */
  readonly intervalMs?: number;
  /** The nodes' timeout T. @defaultValue 5I */
  readonly timeoutMs?: number;
  /** The nodes' renew deadline R. @defaultValue T/2 */
  readonly renewDeadlineMs?: number;
  /**
   * The node command, one word per element, with placeholders (`{store}` `{group}` `{env}` `{id}`
   * `{interval}` `{timeout}` `{renewDeadline}` `{register}`); any Node.js program that prints the
   * JSON-lines contract of `roster node --json`. @defaultValue `@roster/verify`'s own node program
   */
  readonly command?: readonly string[];
  /** The fault kinds to draw from. @defaultValue every link and process fault, and the store faults with `storeControl` */
  readonly kinds?: readonly FaultKind[];
  /** The share of link and process faults that hit the leader (the rest hit a follower). @defaultValue 0.75 */
  readonly leaderShare?: number;
  /** The store's process, when the tool started it: enables the store faults. */
  readonly storeControl?: StoreControl;
  /** The group the run lives in. @defaultValue `roster-verify-<8 hex digits>` */
  readonly group?: string;
  /** @defaultValue "verify" */
  readonly env?: string;
  /** Options of the check. */
  readonly check?: CheckOptions;
  /** Called about every 250 ms and at each fault, for a progress display. */
  readonly onProgress?: (progress: VerifyProgress) => void;
  /** Ends the run early (the history so far is still checked and the keys deleted). */
  readonly signal?: AbortSignal;
  /** How long to wait for the store at start, ms. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** How many round trips to measure before the run. @defaultValue 50 */
  readonly roundTripSamples?: number;
}

/** Where a run is, for a progress display. */
export interface VerifyProgress {
  readonly phase: 'measuring' | 'starting' | 'running' | 'checking' | 'cleaning';
  /** ms since the nemesis started (0 before). */
  readonly elapsedMs: number;
  readonly durationMs: number;
  readonly faultsDone: number;
  readonly faultsPlanned: number;
  /** The fault open now, if any. */
  readonly fault?: FaultWindow;
  /** The node reporting leader now, if one. */
  readonly leader?: string;
}

/**
 * A run's verdict: `passed`; `failed` (a violation, or a node process that exited by itself); or
 * `inconclusive`: the run found nothing wrong, but it was to cut the nodes' links and no cut
 * reached a connection to the store, so the cuts proved nothing (the store reached another way,
 * e.g. over TLS, or the nodes' connections not routed through their links).
 */
export type Verdict = 'passed' | 'failed' | 'inconclusive';

/** One network cut of a run (`cut-silent`, `cut-reset`, `drop-replies`, `flap`) and what it reached. */
export interface CutReach {
  readonly fault: FaultWindow;
  /**
   * How many connections of the node to the store it reached: the connections through the node's
   * link, other than to the run's fenced register (see `FaultProxy.cuts`). 0: the cut proved nothing.
   */
  readonly storeConnections: number;
}

/** What a run found. */
export interface VerifyResult {
  /** True when the verdict is `passed`: no violation, no node process exited by itself, and the cuts reached the store. */
  readonly ok: boolean;
  /** See {@link Verdict}; a violation or a crash makes it `failed` whatever the cuts reached. */
  readonly verdict: Verdict;
  /** Each network cut injected, with the store connections it reached (see {@link CutReach}). */
  readonly cuts: readonly CutReach[];
  readonly report: CheckReport;
  readonly history: History;
  readonly seed: number;
  readonly group: string;
  readonly env: string;
  readonly schedule: readonly PlannedFault[];
  /** The store's round trip measured before the run, and while it ran. */
  readonly roundTrip: { readonly before: RoundTripStats; readonly during: RoundTripStats };
  /** The timing advised for this store (from the round trip before the run). */
  readonly advice: TimingAdvice;
  /** The timing the nodes ran with. */
  readonly timing: HistoryTiming;
  /** How long the whole run took, ms (measuring and cleaning up included). */
  readonly elapsedMs: number;
  /** Lines nodes printed that are not of the contract (at most 20). */
  readonly junk: readonly { readonly node: string; readonly line: string }[];
  /** Node processes that exited by themselves (started again after T), with the end of their stderr. */
  readonly crashes: readonly { readonly node: string; readonly at: number; readonly code: number | null; readonly signal: string | null; readonly stderr: string }[];
  /** Planned faults that found no target (no leader, no follower alive) and were skipped. */
  readonly skipped: readonly PlannedFault[];
  /** How the group's keys were deleted. */
  readonly cleanup: { readonly deleted: number; readonly error?: string };
  /** True when the store URL uses TLS: the nodes' connections then go direct, and the link faults do not cut them. */
  readonly tlsNotCut: boolean;
}

const DEFAULT_NODES = 3;
const DEFAULT_DURATION_MS = 60_000;
const PROGRESS_EVERY_MS = 250;
const SAMPLE_EVERY_MS = 1000;
const JUNK_KEPT = 20;
/** The schedule waits at most this long for the group's first leader. */
const FORMING_MAX_MS = 30_000;
/** A group is expected to have elected its first leader this soon after its processes start. */
const FORMED_EXPECTED_MS = 1000;

/**
 * Runs the nemesis against `options.store` and checks the history (see the module's
 * documentation). Resolves once every node is stopped and the group's keys are deleted; rejects
 * with a {@link VerifyError} only when the run could not start (a bad option, the store
 * unreachable).
 *
 * @example
 * ```ts
 * const result = await runVerify({ store: 'redis://127.0.0.1:6379', durationMs: 30_000, seed: 7 });
 * console.log(formatReport(result));
 * process.exitCode = result.ok ? 0 : 1;
 * ```
 */
export async function runVerify(options: VerifyOptions): Promise<VerifyResult> {
  const began = performance.now();
  const nodeCount = options.nodes ?? DEFAULT_NODES;
  const durationMs = options.durationMs ?? DEFAULT_DURATION_MS;
  if (!Number.isInteger(nodeCount) || nodeCount < 2 || nodeCount > 16) throw new VerifyError('nodes', nodeCount, 'Expected `nodes` to be an integer from 2 to 16');
  if (!Number.isFinite(durationMs) || durationMs < 1000) throw new VerifyError('durationMs', durationMs, 'Expected `durationMs` to be at least 1000');
  const seed = options.seed ?? randomInt(0, 2 ** 31);
  const group = options.group ?? `roster-verify-${randomBytes(4).toString('hex')}`;
  const env = options.env ?? 'verify';
  const namespace = new Namespace(group, env);
  const nodeIds = Array.from({ length: nodeCount }, (_, i) => `node-${i + 1}`);
  const report = (progress: VerifyProgress): void => {
    try {
      options.onProgress?.(progress);
    } catch {
      // A display's failure must not end the run.
    }
  };

  let kv: KV;
  try {
    kv = await connectStore(options.store, { commandTimeoutMs: 2000, connectTimeoutMs: options.connectTimeoutMs ?? 5000 });
  } catch (error) {
    throw new VerifyError('store', redact(options.store), `Could not connect to the store: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const resources: { close(): Promise<void> }[] = [];
  try {
    // 1. The store's round trip, and the timing it can carry.
    report({ phase: 'measuring', elapsedMs: 0, durationMs, faultsDone: 0, faultsPlanned: 0 });
    const before = new RoundTripSampler(kv, namespace.key('verify/round-trip'), 2000);
    await before.sampleMany(options.roundTripSamples ?? 50, 20, options.signal);
    const advice = adviseTiming(before.stats());
    const intervalMs = options.intervalMs ?? advice.intervalMs;
    const timeoutMs = options.timeoutMs ?? 5 * intervalMs;
    const renewDeadlineMs = options.renewDeadlineMs ?? Math.floor(timeoutMs / 2);
    const timing: HistoryTiming = { intervalMs, timeoutMs, renewDeadlineMs };

    // 2. The plan.
    const kinds = options.kinds ?? [...LINK_FAULTS, ...PROCESS_FAULTS, ...(options.storeControl ? STORE_FAULTS : [])];
    if (!options.storeControl && kinds.some((k) => k.startsWith('store-'))) {
      throw new VerifyError('kinds', kinds.filter((k) => k.startsWith('store-')).join(','), 'Store faults need a `storeControl` (a store the tool started)');
    }
    const schedule = buildSchedule({ seed, durationMs, intervalMs, timeoutMs, kinds, ...(options.leaderShare !== undefined && { leaderShare: options.leaderShare }) });

    // 3. The register, the links and the nodes.
    report({ phase: 'starting', elapsedMs: 0, durationMs, faultsDone: 0, faultsPlanned: schedule.length });
    let t0 = performance.now();
    // Whole milliseconds: lines of different nodes read in one turn of the event loop come through
    // different pipes in an order that means nothing, and the checker takes lines of one `at` as
    // simultaneous (an ending and a beginning at the same instant do not overlap).
    const now = (): number => Math.round(performance.now() - t0);
    const register = await FencedRegister.listen({ now });
    resources.push(register);
    const observations: Observation[] = [];
    const junk: { node: string; line: string }[] = [];
    const crashes: { node: string; at: number; code: number | null; signal: string | null; stderr: string }[] = [];
    let running = true;
    const lastRole = new Map<string, string>();
    const template = options.command ?? defaultNodeCommand();
    const values = { store: options.store, group, env, interval: intervalMs, timeout: timeoutMs, renewDeadline: renewDeadlineMs, register: register.url };
    const slots: NodeSlot[] = [];
    for (const id of nodeIds) {
      const link = await FaultProxy.listen();
      resources.push(link);
      const slot = new NodeSlot(id, link, expandCommand(template, values, id), {
        onEvent(node, event) {
          observations.push({ node, at: now(), event });
          if (event.event === 'role') lastRole.set(node, event.role);
          if (event.event === 'stopped') lastRole.delete(node);
        },
        onJunk(node, line) {
          if (junk.length < JUNK_KEPT) junk.push({ node, line: line.slice(0, 300) });
        },
        onCrash(node, exit, stderr) {
          lastRole.delete(node);
          if (!running) return;
          crashes.push({ node, at: now(), code: exit.code, signal: exit.signal, stderr: stderr.slice(-1000) });
          // As a supervisor would: started again after T.
          setTimeout(() => {
            if (running) slots.find((s) => s.id === node)?.start();
          }, timeoutMs).unref();
        },
      });
      slots.push(slot);
    }
    resources.push({ close: () => Promise.all(slots.map((s) => s.stop(2000))).then(() => undefined) });
    t0 = performance.now();
    for (const slot of slots) slot.start();

    // 4. The nemesis.
    const faults: FaultWindow[] = [];
    const cuts: CutReach[] = [];
    const registerPort = Number(new URL(register.url).port);
    const skipped: PlannedFault[] = [];
    const during = new RoundTripSampler(kv, namespace.key('verify/round-trip'), 2000);
    const leaderNow = (): string | undefined => slots.find((s) => s.alive && lastRole.get(s.id) === 'leader')?.id;
    let open: FaultWindow | undefined;
    /** How much later than planned the schedule runs: the time the group took to elect beyond the expected. */
    let shift = 0;
    const progress = (phase: VerifyProgress['phase']): void =>
      report({
        phase,
        elapsedMs: Math.max(0, now() - shift),
        durationMs,
        faultsDone: faults.length,
        faultsPlanned: schedule.length,
        ...(open && { fault: open }),
        ...(leaderNow() !== undefined && { leader: leaderNow()! }),
      });
    const ticker = setInterval(() => progress('running'), PROGRESS_EVERY_MS);
    const sampler = setInterval(() => void during.sample(), SAMPLE_EVERY_MS);
    const control = options.storeControl;
    try {
      // The schedule starts once the group has a leader: node processes start slowly on a loaded
      // machine, and a fault planned before any leader would find no target.
      await sleepUntil(() => leaderNow() !== undefined || now() >= FORMING_MAX_MS, options.signal);
      shift = Math.max(0, now() - FORMED_EXPECTED_MS);
      for (const planned of schedule) {
        if (!(await sleepUntil(() => now() >= planned.at + shift, options.signal))) break;
        // No leader (or follower) yet, e.g. while processes start on a loaded machine: wait up to 2T.
        let target = pickTarget(planned, slots, lastRole);
        const waitUntil = now() + 2 * timeoutMs;
        while (target === undefined && now() < waitUntil && !options.signal?.aborted) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          target = pickTarget(planned, slots, lastRole);
        }
        if (target === undefined) {
          skipped.push(planned);
          continue;
        }
        const from = now();
        open = { kind: planned.kind, target: target === 'store' ? 'store' : target.id, from, to: from };
        progress('running');
        const cutLink = target !== 'store' && (CUT_FAULTS as readonly FaultKind[]).includes(planned.kind) ? target.link : undefined;
        const cutsBefore = cutLink ? storeCuts(cutLink, registerPort) : 0;
        const to = await inject(planned, target, control, now, options.signal);
        faults.push({ ...open, to });
        if (cutLink) cuts.push({ fault: { ...open, to }, storeConnections: storeCuts(cutLink, registerPort) - cutsBefore });
        open = undefined;
        progress('running');
      }
      await sleepUntil(() => now() >= durationMs + shift, options.signal);
    } finally {
      running = false;
      clearInterval(ticker);
      clearInterval(sampler);
      // A fault cut short by the signal is healed: every link open, every process running.
      for (const slot of slots) {
        slot.link.heal();
        slot.signal('SIGCONT');
      }
    }
    const end = now();

    // 5. The check, on what was read up to the end.
    report({ phase: 'checking', elapsedMs: end, durationMs, faultsDone: faults.length, faultsPlanned: schedule.length });
    const history: History = {
      observations: observations.filter((o) => o.at <= end),
      writes: register.writes.filter((w) => w.at <= end),
      faults,
      timing,
      nodes: nodeIds,
      start: 0,
      end,
    };
    const dataLossKinds = ['store-data-loss', ...(control?.killLosesData ? ['store-kill'] : [])];
    const checked = checkHistory(history, { dataLossKinds, ...options.check });

    // 6. Nothing left behind.
    report({ phase: 'cleaning', elapsedMs: end, durationMs, faultsDone: faults.length, faultsPlanned: schedule.length });
    await closeAll(resources.splice(0).reverse());
    let cleanup: VerifyResult['cleanup'];
    try {
      cleanup = { deleted: await deleteRunKeys(kv, namespace, nodeIds) };
    } catch (error) {
      cleanup = { deleted: 0, error: error instanceof Error ? error.message : String(error) };
    }
    // Cuts were planned and none reached the store: nothing wrong was found, and nothing was proved.
    const cutsPlanned = schedule.some((p) => (CUT_FAULTS as readonly FaultKind[]).includes(p.kind));
    const verdict: Verdict = !checked.ok || crashes.length > 0 ? 'failed' : cutsPlanned && !cuts.some((c) => c.storeConnections > 0) ? 'inconclusive' : 'passed';
    return {
      ok: verdict === 'passed',
      verdict,
      cuts,
      report: checked,
      history,
      seed,
      group,
      env,
      schedule,
      roundTrip: { before: before.stats(), during: during.stats() },
      advice,
      timing,
      elapsedMs: Math.round(performance.now() - began),
      junk,
      crashes,
      skipped,
      cleanup,
      tlsNotCut: /^(rediss|redis\+sentinels):|sslmode=(require|verify)|^https:|^etcds:/i.test(options.store),
    };
  } finally {
    await closeAll(resources.reverse());
    await kv.close().catch(() => undefined);
  }
}

/**
 * How many times `link`'s faults reached a connection to the store so far: every destination but
 * the run's register (on the loopback interface at `registerPort`).
 */
function storeCuts(link: FaultProxy, registerPort: number): number {
  let total = 0;
  for (const [destination, count] of link.cuts) {
    const colon = destination.lastIndexOf(':');
    const host = destination.slice(0, colon).replace(/^\[|\]$/g, '');
    const isRegister = Number(destination.slice(colon + 1)) === registerPort && ['127.0.0.1', 'localhost', '::1'].includes(host);
    if (!isRegister) total += count;
  }
  return total;
}

/** The node a planned fault hits now: the leader, a live follower, or the store; `undefined` when there is none. */
function pickTarget(planned: PlannedFault, slots: readonly NodeSlot[], roles: ReadonlyMap<string, string>): NodeSlot | 'store' | undefined {
  if (planned.target === 'store') return 'store';
  const alive = slots.filter((s) => s.alive);
  if (planned.target === 'leader') return alive.find((s) => roles.get(s.id) === 'leader') ?? undefined;
  return alive.find((s) => roles.get(s.id) !== 'leader');
}

/** Opens `planned` on `target`, holds it for its duration, heals it; resolves to the time it ended. */
async function inject(planned: PlannedFault, target: NodeSlot | 'store', control: StoreControl | undefined, now: () => number, signal: AbortSignal | undefined): Promise<number> {
  const hold = (): Promise<boolean> => {
    const until = now() + planned.durationMs;
    return sleepUntil(() => now() >= until, signal);
  };
  if (target === 'store') {
    switch (planned.kind) {
      case 'store-kill':
        await control!.kill();
        await hold();
        await control!.start();
        return now();
      case 'store-freeze':
        await control!.freeze();
        await hold();
        await control!.thaw();
        return now();
      default:
        await control!.restart();
        return now();
    }
  }
  const { link } = target;
  switch (planned.kind) {
    case 'cut-silent':
    case 'cut-reset':
    case 'drop-replies':
      link.setMode(planned.kind === 'cut-silent' ? 'silent' : planned.kind === 'cut-reset' ? 'reset' : 'drop-replies');
      await hold();
      link.setMode('open');
      return now();
    case 'flap':
      link.flap(planned.flapPeriodMs ?? 500);
      await hold();
      link.setMode('open');
      return now();
    case 'latency':
      link.setLatency(planned.delayMs ?? 0);
      await hold();
      link.setLatency(0);
      return now();
    case 'kill':
      target.signal('SIGKILL');
      await target.exited();
      await hold();
      target.start();
      return now();
    case 'pause':
      target.signal('SIGSTOP');
      await hold();
      target.signal('SIGCONT');
      return now();
    case 'term': {
      target.signal('SIGTERM');
      await hold();
      // Still shutting down after the hold: it is killed before it starts again.
      if (target.alive) target.signal('SIGKILL');
      await target.exited();
      target.start();
      return now();
    }
    default:
      return now();
  }
}

/** Polls `done` every 10 ms; resolves true when it holds, false when `signal` aborts first. */
async function sleepUntil(done: () => boolean, signal: AbortSignal | undefined): Promise<boolean> {
  while (!done()) {
    if (signal?.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

async function closeAll(resources: readonly { close(): Promise<void> }[]): Promise<void> {
  for (const r of resources) await r.close().catch(() => undefined);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
}

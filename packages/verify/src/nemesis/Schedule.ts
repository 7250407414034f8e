/**
 * The nemesis's plan: a seeded list of timed faults. The same seed, duration, timing and kinds
 * give the same schedule on every machine, so a run that found a bug is replayed from its seed.
 *
 * Faults come one at a time, each followed by a quiet gap long enough for the group to recover
 * (2T + 4I, plus up to T), so each fault's self-fence, failover and recovery are measured on
 * their own. The kinds come in rounds: each round is every allowed kind once, in a random order,
 * so a short run still has each kind once before any repeats.
 */
import { SeededRandom } from './random.js';

/** Faults of a node's link to the store (and to the register). */
export const LINK_FAULTS = ['cut-silent', 'cut-reset', 'drop-replies', 'flap', 'latency'] as const;
/** Faults of a node's process. */
export const PROCESS_FAULTS = ['kill', 'pause', 'term'] as const;
/** Faults of the store itself, only when the tool started it (see `StoreControl`). */
export const STORE_FAULTS = ['store-kill', 'store-freeze', 'store-restart'] as const;
/** The network cuts every run should include. */
export const CUT_FAULTS = ['cut-silent', 'cut-reset', 'drop-replies', 'flap'] as const;

/** A kind of fault the nemesis can inject. */
export type FaultKind = (typeof LINK_FAULTS)[number] | (typeof PROCESS_FAULTS)[number] | (typeof STORE_FAULTS)[number];

/** Every kind, in the order reports list them. */
export const FAULT_KINDS: readonly FaultKind[] = [...LINK_FAULTS, ...PROCESS_FAULTS, ...STORE_FAULTS];

/** One planned fault. */
export interface PlannedFault {
  readonly kind: FaultKind;
  /** Whom it hits: the node leading when it starts, a node following, or the store. */
  readonly target: 'leader' | 'follower' | 'store';
  /** When it starts, ms after the run's start. */
  readonly at: number;
  /** How long it lasts (a killed or terminated node is started again at its end). */
  readonly durationMs: number;
  /** For `latency`: the delay added to each chunk, each way. */
  readonly delayMs?: number;
  /** For `flap`: the period of the link going silent and open again. */
  readonly flapPeriodMs?: number;
}

/** Options of {@link buildSchedule}. */
export interface ScheduleOptions {
  /** Any integer. */
  readonly seed: number;
  /** The length of the run, ms. */
  readonly durationMs: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** The kinds to draw from (none of `STORE_FAULTS` unless the tool controls the store). */
  readonly kinds: readonly FaultKind[];
  /** The share of link and process faults that hit the leader (the others hit a follower). @defaultValue 0.75 */
  readonly leaderShare?: number;
}

/** The quiet time before the first fault, for the group to form: 2T + 1 s. */
export function warmupMs(timing: { readonly timeoutMs: number }): number {
  return 2 * timing.timeoutMs + 1000;
}

/** The shortest quiet time after a fault: 2T + 4I, the time the group gets to recover. */
export function recoveryGapMs(timing: { readonly intervalMs: number; readonly timeoutMs: number }): number {
  return 2 * timing.timeoutMs + 4 * timing.intervalMs;
}

/** The schedule for `options` (see the module's documentation). */
export function buildSchedule(options: ScheduleOptions): PlannedFault[] {
  const { intervalMs: I, timeoutMs: T } = options;
  const random = new SeededRandom(options.seed);
  const faults: PlannedFault[] = [];
  let at = warmupMs(options);
  let round: FaultKind[] = [];
  for (;;) {
    if (round.length === 0) round = random.shuffle(options.kinds);
    const kind = round.shift();
    if (kind === undefined) break;
    const fault = plan(kind, at, random, I, T, options.leaderShare ?? 0.75);
    const gap = recoveryGapMs(options) + random.int(0, T);
    if (fault.at + fault.durationMs + gap > options.durationMs) break;
    faults.push(fault);
    at = fault.at + fault.durationMs + gap;
  }
  return faults;
}

function plan(kind: FaultKind, at: number, random: SeededRandom, I: number, T: number, leaderShare: number): PlannedFault {
  const target = kind.startsWith('store-') ? 'store' : random.next() < leaderShare ? 'leader' : 'follower';
  // Long enough for a cut leader to fence itself and another to take over (T + 2I), and more.
  const cut = (): number => random.int(T + 2 * I, 2 * T + 2 * I);
  switch (kind) {
    case 'cut-silent':
    case 'cut-reset':
    case 'drop-replies':
      return { kind, target, at, durationMs: cut() };
    case 'flap':
      return { kind, target, at, durationMs: cut(), flapPeriodMs: random.int(Math.max(2, Math.round(T / 2)), T) };
    case 'latency':
      // I/40 to I/20 each way: far below the operation deadline τ = I/2, so the group should not
      // notice, unless the store's own round trip already eats that margin.
      return { kind, target, at, durationMs: random.int(2 * T, 3 * T), delayMs: random.int(Math.max(1, Math.round(I / 40)), Math.max(1, Math.round(I / 20))) };
    case 'kill':
    case 'term':
      return { kind, target, at, durationMs: random.int(T, 2 * T) };
    case 'pause':
      return { kind, target, at, durationMs: random.int(Math.round(T / 2), 2 * T) };
    case 'store-kill':
      return { kind, target, at, durationMs: random.int(T, 2 * T) };
    case 'store-freeze':
      return { kind, target, at, durationMs: random.int(Math.round(T / 2), 2 * T) };
    case 'store-restart':
      return { kind, target, at, durationMs: 0 };
  }
}

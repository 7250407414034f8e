/**
 * The store's round trip, as the runner measures it with its own connection (not through any
 * node's link), and the timing it can carry. One read of a key of the run's own group per sample,
 * samples spaced out so the rate stays bounded (≤ 1000 / `spacingMs` reads a second).
 */
import type { KV } from '@roster/kv-adapter';

/** The round trips measured, in ms. */
export interface RoundTripStats {
  readonly samples: number;
  /** Reads that failed (counted apart, not in the figures). */
  readonly failures: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

/** A timing this store can carry, and why. */
export interface TimingAdvice {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly renewDeadlineMs: number;
  /** One sentence per rule that set the figures. */
  readonly reasons: readonly string[];
}

/** Collects round trips; {@link stats} summarizes them. */
export class RoundTripSampler {
  readonly #kv: KV;
  readonly #key: string;
  readonly #timeoutMs: number;
  readonly #samples: number[] = [];
  #failures = 0;

  /** Reads `key` on `kv`; a read slower than `timeoutMs` counts as a failure. */
  constructor(kv: KV, key: string, timeoutMs: number) {
    this.#kv = kv;
    this.#key = key;
    this.#timeoutMs = timeoutMs;
  }

  /** Takes one sample. Never rejects. */
  async sample(): Promise<void> {
    const started = performance.now();
    try {
      await this.#kv.get(this.#key, { signal: AbortSignal.timeout(this.#timeoutMs) });
      this.#samples.push(performance.now() - started);
    } catch {
      this.#failures++;
    }
  }

  /** Takes `count` samples, `spacingMs` apart. */
  async sampleMany(count: number, spacingMs: number, signal?: AbortSignal): Promise<void> {
    for (let i = 0; i < count && !signal?.aborted; i++) {
      await this.sample();
      await new Promise((resolve) => setTimeout(resolve, spacingMs));
    }
  }

  /** The figures so far. */
  stats(): RoundTripStats {
    return summarize(this.#samples, this.#failures);
  }
}

/** p50, p99 and max of `samples` (nearest rank). */
export function summarize(samples: readonly number[], failures = 0): RoundTripStats {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (q: number): number => (sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
  return { samples: sorted.length, failures, p50Ms: rank(0.5), p99Ms: rank(0.99), maxMs: sorted.at(-1) ?? Number.NaN };
}

/** The smallest interval advised on any store, ms. */
export const MIN_ADVISED_INTERVAL_MS = 100;

/**
 * The interval, timeout and renew deadline a store of these round trips can carry, by the rules of
 * `@roster/election`'s timing table (docs/protocol.md "Timing", docs/faults.md): one store
 * operation may take τ = I/2 before it counts as failed, so the round trip must stay well under
 * it: I ≥ 4 × p99 (docs/faults.md: a round trip above I/2 makes every operation fail) and
 * I/2 ≥ 1.5 × the slowest round trip seen; then T = 5I (the default: T > 2I, a follower sees two
 * publications within T) and R = T/2 (I < R < T − I: the leader renews at least once before R and
 * fences itself an interval before its followers stand). Rounded up to 50 ms.
 */
export function adviseTiming(rt: RoundTripStats): TimingAdvice {
  const reasons: string[] = [];
  if (rt.samples === 0) {
    return { intervalMs: 1000, timeoutMs: 5000, renewDeadlineMs: 2500, reasons: ['no round trip could be measured: the library defaults (I = 1000 ms, T = 5I, R = T/2)'] };
  }
  const byP99 = 4 * rt.p99Ms;
  const byMax = 3 * rt.maxMs;
  const raw = Math.max(MIN_ADVISED_INTERVAL_MS, byP99, byMax);
  const intervalMs = Math.ceil(raw / 50) * 50;
  if (raw === MIN_ADVISED_INTERVAL_MS) {
    reasons.push(`the round trip (p99 ${fmt(rt.p99Ms)} ms, max ${fmt(rt.maxMs)} ms) is far below any deadline: I = ${intervalMs} ms, the floor verify advises (each member makes about 3 operations per I)`);
  } else if (byP99 >= byMax) {
    reasons.push(`I ≥ 4 × p99 (${fmt(rt.p99Ms)} ms): an operation may take τ = I/2 = ${intervalMs / 2} ms before it counts as failed, twice the p99`);
  } else {
    reasons.push(`I/2 ≥ 1.5 × the slowest round trip (${fmt(rt.maxMs)} ms): τ = I/2 = ${intervalMs / 2} ms keeps a margin over it`);
  }
  reasons.push(`T = 5I = ${5 * intervalMs} ms (the default; T > 2I so that a follower sees two publications within T); failover within T + 2I = ${7 * intervalMs} ms`);
  reasons.push(`R = T/2 = ${2.5 * intervalMs} ms (I < R < T − I: a cut leader renews at least once before R and stops calling itself leader an interval before its followers stand)`);
  if (rt.failures > 0) reasons.push(`${rt.failures} of ${rt.samples + rt.failures} reads failed: look at the store's health before trusting these figures`);
  return { intervalMs, timeoutMs: 5 * intervalMs, renewDeadlineMs: 2.5 * intervalMs, reasons };
}

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

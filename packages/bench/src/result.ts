/** The result record of a run, as written to the JSON file. */
import type { FailoverResult, StallResult } from './measure/leadership.js';
import type { MembershipResult } from './measure/membership.js';
import type { MachineInfo } from './report/machine.js';
import type { ScaleResult } from './scale/runScale.js';

/** What was measured for one system. */
export interface SystemResult {
  readonly name: string;
  readonly label: string;
  readonly timing: string;
  readonly timeoutMs: number;
  failover?: FailoverResult;
  stall?: StallResult;
  /** failover median ÷ stall tolerance; null when either is missing or the tolerance is 0. */
  ratio?: number | null;
  resign?: FailoverResult;
  membership?: MembershipResult;
  /** Set when the system's run failed part-way. */
  error?: string;
}

/** A whole run. */
export interface BenchResult {
  readonly schema: 1;
  readonly mode: 'quick' | 'full';
  readonly startedAt: string;
  finishedAt?: string;
  durationS?: number;
  readonly nodes: number;
  readonly machine: MachineInfo;
  readonly systems: SystemResult[];
  readonly scale: ScaleResult[];
  /** How a stall try was judged, etc., for readers of the JSON. */
  readonly notes: readonly string[];
}

/** failover median ÷ tolerance. */
export function ratioOf(failover: FailoverResult | undefined, stall: StallResult | undefined): number | null {
  if (!failover || !stall || stall.toleranceMs <= 0 || Number.isNaN(failover.summary.median)) return null;
  return Math.round((failover.summary.median / stall.toleranceMs) * 100) / 100;
}

import { expect } from 'vitest';
import { formatFailure, runChaos, type ChaosOptions, type ChaosReport } from '../../src/index.js';

/** Runs from the environment (`ROSTER_CHAOS_RUNS`), else `fallback`. */
export function chaosRuns(fallback: number): number {
  const n = Number(process.env.ROSTER_CHAOS_RUNS);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** The seed from the environment (`ROSTER_CHAOS_SEED`), else `fallback`: CI runs a fixed seed. */
export function chaosSeed(fallback: number): number {
  const n = Number(process.env.ROSTER_CHAOS_SEED);
  return Number.isSafeInteger(n) ? n : fallback;
}

/**
 * Runs a chaos suite and fails with the shrunk counterexample, its history and the one-line
 * replay command when a property breaks.
 */
export async function expectChaosToPass(options: ChaosOptions): Promise<ChaosReport> {
  const report = await runChaos(options);
  const d = report.dualLeadership;
  console.log(
    [
      `chaos (views ${options.views ?? 'mixed'}, seed ${report.seed}): passed ${report.passed} of ${report.runs} in ${(report.wallMs / 1000).toFixed(1)} s`,
      `worst convergence after the last fault ${report.worstConvergence?.ms ?? '-'} ms (bound ${report.worstConvergence?.boundMs ?? '-'} ms)`,
      `dual leadership: shared ${d.shared.totalMs} ms / ${d.shared.runs} runs, shared with data loss ${d.sharedDataLoss.totalMs} ms / ${d.sharedDataLoss.runs} runs, per-node ${d.perNode.totalMs} ms / ${d.perNode.runs} runs (longest ${d.perNode.longestMs} ms)`,
      `worst node per interval: ${report.worstPerInterval.commands} store commands, ${report.worstPerInterval.logLines} log lines`,
      `skipped (known issues): ${JSON.stringify(report.skipped)}`,
    ].join('\n  '),
  );
  if (report.failure) {
    const text = formatFailure(report.failure);
    console.error(text);
    expect.fail(`a property failed; replay with: ${report.failure.replay}\n\n${text}`);
  }
  expect(report.runs).toBe(options.runs);
  return report;
}

import { resolveCheckOptions } from '../checker/CheckOptions.js';
import { formatViolation } from '../checker/formatViolation.js';
import { leaderReports } from '../checker/internal/reports.js';
import type { FaultOutcome } from '../checker/faultOutcomes.js';
import type { RoundTripStats } from '../nemesis/RoundTrip.js';
import type { VerifyResult } from '../runVerify.js';

/** Why a run is `inconclusive` (see `Verdict`), as the report and `--json` say it. */
export const INCONCLUSIVE_REASON = 'no network cut reached a store connection: the cuts proved nothing';

/** What {@link formatReport} needs to say besides the result. */
export interface ReportContext {
  /** The store as it may be shown (its password hidden). */
  readonly store?: string;
  /** The command that replays the run (`roster verify --store … --seed …`), if any. */
  readonly replay?: string;
}

/**
 * The report of a run, for a person to read in a minute: the verdict, the store's round trip and
 * the timing it can carry (and why), each fault with what followed it (self-fence, failover,
 * recovery), the fenced register's tally, every violation with the lines around it, and the
 * clean-up.
 */
export function formatReport(result: VerifyResult, context: ReportContext = {}): string {
  const { history, report, timing } = result;
  const lines: string[] = [];
  const failures = [
    ...(report.violations.length > 0 ? [`${report.violations.length} violation${report.violations.length === 1 ? '' : 's'}: ${[...new Set(report.violations.map((v) => v.rule))].join(', ')}`] : []),
    ...(result.crashes.length > 0 ? [`${result.crashes.length} node process${result.crashes.length === 1 ? '' : 'es'} crashed`] : []),
    // A leader a cut did not reach is not replaced (a `failover` violation): say why.
    ...(result.cuts.length > 0 && result.cuts.every((c) => c.storeConnections === 0) ? ['no network cut reached a store connection'] : []),
  ];
  const verdict = result.verdict === 'passed' ? 'PASSED' : result.verdict === 'inconclusive' ? `INCONCLUSIVE (${INCONCLUSIVE_REASON})` : `FAILED (${failures.join('; ')})`;
  lines.push(`roster verify: ${verdict}`);
  lines.push(
    `  seed ${result.seed}, ${history.nodes.length} nodes, nemesis ${seconds(history.end)}, whole run ${seconds(result.elapsedMs)}${context.store ? `, store ${context.store}` : ''}`,
  );
  lines.push(`  nodes ran with I = ${timing.intervalMs} ms, T = ${timing.timeoutMs} ms, R = ${timing.renewDeadlineMs} ms`);
  lines.push('');
  lines.push('Store round trip (the runner’s own reads, not through the nemesis)');
  lines.push(`  before the run  ${roundTrip(result.roundTrip.before)}`);
  lines.push(`  during the run  ${roundTrip(result.roundTrip.during)}`);
  lines.push(`  this store can carry I = ${result.advice.intervalMs} ms, T = ${result.advice.timeoutMs} ms, R = ${result.advice.renewDeadlineMs} ms:`);
  for (const reason of result.advice.reasons) lines.push(`    - ${reason}`);
  lines.push('');
  lines.push(`Faults (${report.faults.length}${result.skipped.length > 0 ? `; ${result.skipped.length} skipped, no target` : ''})`);
  if (report.faults.length === 0) lines.push('  none');
  else {
    lines.push(`  ${'at'.padEnd(9)}${'fault'.padEnd(15)}${'target'.padEnd(10)}${'lasted'.padEnd(9)}${'self-fence'.padEnd(12)}${'failover'.padEnd(10)}recovery`);
    const bound = timing.timeoutMs + 2 * timing.intervalMs;
    for (const outcome of report.faults) lines.push(`  ${faultRow(outcome, ledAt(history, outcome.fault.target, outcome.fault.from), bound)}`);
    lines.push('  (target*: it led when the fault began; self-fence: it stops reporting leader; failover: another node reports leader,');
    lines.push('   both from the fault’s start, shown when within the fault and T + 2I after it;');
    lines.push('   recovery: from its end until every live node follows one leader with every member; -: did not apply or did not happen)');
  }
  const unreached = result.cuts.filter((c) => c.storeConnections === 0);
  if (result.cuts.length > 0 && unreached.length > 0) {
    lines.push(`  note: ${unreached.length} of ${result.cuts.length} network cuts reached no connection to the store (${unreached.map((c) => `${c.fault.kind} at ${seconds(c.fault.from)}`).join(', ')})`);
  }
  if (result.tlsNotCut) lines.push('  note: the store URL uses TLS; the nodes’ connections went direct, so the link faults did not cut them');
  lines.push('');
  const writes = history.writes;
  const refused = writes.filter((w) => !w.accepted).length;
  const highest = writes.reduce((max, w) => (BigInt(w.token) > max ? BigInt(w.token) : max), 0n);
  lines.push(`Fenced register: ${writes.length} writes, ${writes.length - refused} accepted, ${refused} stale refused (highest token ${highest})`);
  lines.push('');
  if (report.violations.length === 0) lines.push('Violations: none');
  else {
    lines.push(`Violations (${report.violations.length})`);
    for (const v of report.violations) {
      lines.push(...formatViolation(v).split('\n').map((l) => `  ${l}`));
      lines.push('');
    }
  }
  if (result.crashes.length > 0) {
    lines.push('');
    lines.push(`Node processes that exited by themselves (${result.crashes.length}; each started again after T):`);
    for (const c of result.crashes.slice(0, 5)) {
      const error = c.stderr.split('\n').find((l) => /^\w*Error\b/.test(l)) ?? c.stderr.trim().split('\n').at(-1) ?? '';
      lines.push(`  ${seconds(c.at)}  ${c.node} exited (${c.signal ?? `code ${c.code}`})${error ? `: ${error.trim()}` : ''}`);
    }
  }
  if (result.junk.length > 0) {
    lines.push('');
    lines.push('Lines that are not of the JSON-lines contract (first ones):');
    for (const j of result.junk.slice(0, 5)) lines.push(`  ${j.node}: ${j.line}`);
  }
  lines.push('');
  lines.push(
    result.cleanup.error === undefined
      ? `Cleanup: group ${result.group} (env ${result.env}) deleted, ${result.cleanup.deleted} keys; its list steps expire by themselves within 4T`
      : `Cleanup FAILED for group ${result.group} (env ${result.env}): ${result.cleanup.error}`,
  );
  if (context.replay) lines.push(`Replay this schedule: ${context.replay}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The result as one JSON-ready object (`roster verify --json`): the verdict, the seed, the
 * round trip and advice, each fault's outcome, the violations and the whole history.
 */
export function reportJson(result: VerifyResult): object {
  return {
    ok: result.ok,
    verdict: result.verdict,
    ...(result.verdict === 'inconclusive' && { reason: INCONCLUSIVE_REASON }),
    cuts: result.cuts.map((c) => ({ kind: c.fault.kind, target: c.fault.target, from: c.fault.from, to: c.fault.to, storeConnections: c.storeConnections })),
    seed: result.seed,
    group: result.group,
    env: result.env,
    elapsedMs: result.elapsedMs,
    timing: result.timing,
    roundTrip: result.roundTrip,
    advice: result.advice,
    faults: result.report.faults,
    skipped: result.skipped,
    violations: result.report.violations,
    writes: { total: result.history.writes.length, refused: result.history.writes.filter((w) => !w.accepted).length },
    cleanup: result.cleanup,
    junk: result.junk,
    crashes: result.crashes,
    tlsNotCut: result.tlsNotCut,
    history: { ...result.history, operations: undefined },
  };
}

/**
 * One row of the fault table. A self-fence or failover later than the fault's end plus `boundMs`
 * (T + 2I) did not follow from it (a leader that rode out a latency fault and lost its lead to a
 * later one) and is not shown.
 */
function faultRow({ fault, selfFenceMs, failoverMs, recoveryMs }: FaultOutcome, led: boolean, boundMs: number): string {
  const within = (value: number | undefined): number | undefined => (value !== undefined && value <= fault.to - fault.from + boundMs ? value : undefined);
  const target = `${fault.target}${led ? '*' : ''}`;
  return `${seconds(fault.from).padEnd(9)}${fault.kind.padEnd(15)}${target.padEnd(10)}${seconds(fault.to - fault.from).padEnd(9)}${ms(within(selfFenceMs)).padEnd(12)}${ms(within(failoverMs)).padEnd(10)}${ms(recoveryMs)}`;
}

/** True when `node` reported leader at `at` (its report not ended by a line, a kill or a pause). */
function ledAt(history: VerifyResult['history'], node: string, at: number): boolean {
  const options = resolveCheckOptions(history, { excusePauses: false });
  return leaderReports(history, options).some((r) => r.node === node && r.from.at <= at && at < r.to.at);
}

function roundTrip(rt: RoundTripStats): string {
  if (rt.samples === 0) return `no sample${rt.failures > 0 ? ` (${rt.failures} failed)` : ''}`;
  return `p50 ${fixed(rt.p50Ms)} ms, p99 ${fixed(rt.p99Ms)} ms, max ${fixed(rt.maxMs)} ms (${rt.samples} reads${rt.failures > 0 ? `, ${rt.failures} failed` : ''})`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function ms(value: number | undefined): string {
  return value === undefined ? '-' : `${Math.round(value)} ms`;
}

function fixed(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

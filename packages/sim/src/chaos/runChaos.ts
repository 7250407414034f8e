import fc from 'fast-check';
import { formatHistory } from '../history/formatHistory.js';
import type { Mutation } from '../mutations/Mutation.js';
import { checkRun, PROPERTIES } from '../properties/index.js';
import type { PropertyName, Violation } from '../properties/Property.js';
import { runScenario, type Run } from '../runtime/Simulation.js';
import { rollingScenarioArbitrary, scenarioArbitrary, type ScenarioConstraints } from '../scenario/arbitraries.js';
import { formatScenario } from '../scenario/formatScenario.js';
import type { ActionKind, Scenario, Timing } from '../scenario/Scenario.js';
import { KNOWN_ISSUES } from './knownIssues.js';

/**
 * Which scenarios a chaos run draws: only shared views, per-node views, rolling deploys onto a
 * higher priority (`rollingScenarioArbitrary`, for the `preemption` property), or all of them
 * (`mixed`: shared and per-node alike, and one rolling deploy in 21).
 */
export type ChaosViews = 'shared' | 'per-node' | 'rolling' | 'mixed';

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** How many scenarios to generate. @defaultValue 100 */
  readonly runs?: number;
  /** fast-check's seed. @defaultValue a fresh one */
  readonly seed?: number;
  /** fast-check's path, to replay one (shrunk) counterexample printed by an earlier failure. */
  readonly path?: string;
  /** @defaultValue 'mixed' */
  readonly views?: ChaosViews;
  /** Most nodes per scenario. @defaultValue 5 */
  readonly maxNodes?: number;
  /** Most steps per scenario after the initial starts. @defaultValue 8 */
  readonly maxSteps?: number;
  /** Run this broken variant of the protocol instead of the real one. */
  readonly mutation?: Mutation;
  /** Only these properties. @defaultValue every property */
  readonly properties?: readonly PropertyName[];
  /** Only these kinds of step (besides the initial starts). @defaultValue every kind */
  readonly kinds?: readonly ActionKind[];
  /** The timings scenarios draw from. @defaultValue I = 1 s, T = 5 s */
  readonly timings?: readonly Timing[];
  /**
   * Whether to skip the scenarios that may show a known, still open issue ({@link KNOWN_ISSUES}).
   * @defaultValue true
   */
  readonly skipKnownIssues?: boolean;
  /** Called after every generated scenario (not during shrinking), e.g. for progress. */
  readonly onRun?: (done: number, run: Run) => void;
}

/** A failure, shrunk, with everything needed to read and replay it. */
export interface ChaosFailure {
  readonly seed: number;
  readonly path: string;
  readonly scenario: Scenario;
  readonly violations: readonly Violation[];
  /** How many times fast-check shrank it. */
  readonly shrinks: number;
  /** One line that replays it: `pnpm chaos --seed … --path … --views …`. */
  readonly replay: string;
  /** The same, from the scenario as JSON (independent of fast-check's generators). */
  readonly replayScenario: string;
  /** The history of the shrunk run, around its first violation. */
  readonly history: string;
  /** The error thrown by the run, when it threw instead of breaking a property. */
  readonly error?: string;
}

/** The classes of run {@link ChaosReport} measures apart. */
export type RunClass = 'shared' | 'sharedDataLoss' | 'perNode';

/** Dual leadership measured over the runs of one {@link RunClass}. */
export interface DualLeadershipStats {
  runs: number;
  /** Runs with any time with two nodes having `isLeader()` true. */
  withDualLeadership: number;
  /** Total time with two nodes having `isLeader()` true, over all runs. */
  totalMs: number;
  /** The most in one run. */
  longestMs: number;
  /** Fencing-token inversions (a new leader's token not above an earlier one's), not excused by data loss. */
  tokenInversions: number;
}

/** The class of `run`. */
export function runClass(run: Run): RunClass {
  if (run.views === 'per-node') return 'perNode';
  return run.dataLoss ? 'sharedDataLoss' : 'shared';
}

/** What a chaos run measured over every scenario it generated. */
export interface ChaosReport {
  readonly seed: number;
  /** Scenarios generated and run (shrinking runs not counted). */
  readonly runs: number;
  /** Of those, how many broke no property. */
  readonly passed: number;
  /** Scenarios skipped because they may show a known issue (see {@link KNOWN_ISSUES}), by issue. */
  readonly skipped: Readonly<Record<string, number>>;
  /** The longest time from the last fault to convergence, and the scenario. */
  readonly worstConvergence: { readonly ms: number; readonly boundMs: number; readonly scenario: Scenario } | undefined;
  /**
   * Dual leadership by class of run: `shared` (a shared view of a store that keeps its writes:
   * any dual leadership is a violation), `sharedDataLoss` (shared view, the store loses writes),
   * `perNode` (per-node views).
   */
  readonly dualLeadership: Readonly<Record<RunClass, DualLeadershipStats>>;
  /** The most store commands, and the most log lines, one node issued within an interval in any run (see `operation-budget`). */
  readonly worstPerInterval: { readonly commands: number; readonly logLines: number };
  readonly failure: ChaosFailure | undefined;
  readonly wallMs: number;
}

/** The scenario generator a chaos run with these options uses. */
export function chaosArbitrary(options: Pick<ChaosOptions, 'views' | 'maxNodes' | 'maxSteps' | 'kinds' | 'timings'> = {}): fc.Arbitrary<Scenario> {
  const base: ScenarioConstraints = {
    maxNodes: options.maxNodes ?? 5,
    maxSteps: options.maxSteps ?? 8,
    ...(options.kinds ? { kinds: options.kinds } : {}),
    ...(options.timings ? { timings: options.timings } : {}),
  };
  const views = options.views ?? 'mixed';
  const rolling = rollingScenarioArbitrary({ maxNodes: Math.max(2, base.maxNodes ?? 5), ...(options.timings ? { timings: options.timings } : {}) });
  if (views === 'rolling') return rolling;
  if (views !== 'mixed') return scenarioArbitrary({ ...base, views });
  const shared = scenarioArbitrary({ ...base, views: 'shared' });
  const perNode = scenarioArbitrary({ ...base, views: 'per-node' });
  // Rolling deploys only when redeploys are among the kinds asked for (all, by default).
  if (options.kinds && !options.kinds.includes('redeploy')) return fc.oneof(shared, perNode);
  return fc.oneof({ weight: 10, arbitrary: shared }, { weight: 10, arbitrary: perNode }, { weight: 1, arbitrary: rolling });
}

/**
 * Generates scenarios with fast-check, runs each on the simulator and checks the properties; on
 * the first failure, shrinks it to a small counterexample and reports it with a replay command.
 *
 * @example
 * ```ts
 * const report = await runChaos({ runs: 200, seed: 42 });
 * if (report.failure) console.log(report.failure.replay);
 * ```
 */
export async function runChaos(options: ChaosOptions = {}): Promise<ChaosReport> {
  const started = performance.now();
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) >>> 1;
  const properties = options.properties ?? PROPERTIES.map((p) => p.name);
  let runs = 0;
  let passed = 0;
  const skipped: Record<string, number> = {};
  const skip = options.skipKnownIssues ?? true;
  let shrinking = false;
  let worst: ChaosReport['worstConvergence'];
  const empty = (): DualLeadershipStats => ({ runs: 0, withDualLeadership: 0, totalMs: 0, longestMs: 0, tokenInversions: 0 });
  const dual: Record<RunClass, DualLeadershipStats> = { shared: empty(), sharedDataLoss: empty(), perNode: empty() };
  const perInterval = { commands: 0, logLines: 0 };

  const property = fc.asyncProperty(chaosArbitrary(options), async (scenario) => {
    const known = skip ? KNOWN_ISSUES.find((k) => k.covers(scenario)) : undefined;
    if (known) {
      if (!shrinking) skipped[known.id] = (skipped[known.id] ?? 0) + 1;
      fc.pre(false);
    }
    const run = await runScenario(scenario, { recordOperations: false, ...(options.mutation ? { mutation: options.mutation } : {}) });
    const { violations, measures } = checkRun(run, properties);
    if (!shrinking) {
      runs++;
      if (violations.length === 0) passed++;
      if (measures.convergenceMs !== undefined && (worst === undefined || measures.convergenceMs > worst.ms)) {
        worst = { ms: measures.convergenceMs, boundMs: run.bound, scenario };
      }
      const stats = dual[runClass(run)];
      stats.runs++;
      stats.totalMs += measures.dualLeadershipMs;
      stats.longestMs = Math.max(stats.longestMs, measures.dualLeadershipMs);
      if (measures.dualLeadershipMs > 0) stats.withDualLeadership++;
      stats.tokenInversions += measures.tokenInversions;
      perInterval.commands = Math.max(perInterval.commands, measures.commandsPerInterval);
      perInterval.logLines = Math.max(perInterval.logLines, measures.logLinesPerInterval);
      options.onRun?.(runs, run);
    }
    if (violations.length > 0) {
      shrinking = true;
      throw new PropertyFailure(violations);
    }
  });

  const details = await fc.check(property, {
    seed,
    numRuns: options.runs ?? 100,
    maxSkipsPerRun: 1000,
    ...(options.path === undefined ? {} : { path: options.path, endOnFailure: true }),
  });
  let failure: ChaosFailure | undefined;
  if (details.failed && details.counterexample) {
    const [scenario] = details.counterexample;
    failure = await describeFailure(scenario, {
      seed: details.seed,
      path: details.counterexamplePath ?? '',
      shrinks: details.numShrinks,
      options,
      properties,
      error: details.errorInstance instanceof PropertyFailure ? undefined : String(details.errorInstance),
    });
  }
  return { seed, runs, passed, skipped, worstConvergence: worst, dualLeadership: dual, worstPerInterval: perInterval, failure, wallMs: performance.now() - started };
}

/** Thrown inside the fast-check property so that its message carries the violations. */
class PropertyFailure extends Error {
  readonly violations: readonly Violation[];
  constructor(violations: readonly Violation[]) {
    super(violations.map((v) => `[${v.property}] at ${v.at} ms: ${v.message}`).join('\n'));
    this.violations = violations;
  }
}

async function describeFailure(
  scenario: Scenario,
  context: { seed: number; path: string; shrinks: number; options: ChaosOptions; properties: readonly PropertyName[]; error: string | undefined },
): Promise<ChaosFailure> {
  const { options } = context;
  let run: Run | undefined;
  let error = context.error;
  try {
    run = await runScenario(scenario, options.mutation ? { mutation: options.mutation } : {});
  } catch (e) {
    error ??= String(e);
  }
  const violations = run ? checkRun(run, context.properties).violations : [];
  const first = violations.reduce((min, v) => Math.min(min, v.at), run?.history.end ?? 0);
  const { timeoutMs: T } = scenario.timing;
  const flags = [
    `--views ${options.views ?? 'mixed'}`,
    options.maxNodes === undefined ? '' : `--max-nodes ${options.maxNodes}`,
    options.maxSteps === undefined ? '' : `--max-steps ${options.maxSteps}`,
    options.kinds ? `--kinds ${options.kinds.join(',')}` : '',
    options.timings ? `--timings ${options.timings.map((t) => `${t.intervalMs}/${t.timeoutMs}`).join(',')}` : '',
    options.skipKnownIssues === false ? '--include-known-issues' : '',
    options.mutation ? `--mutation ${options.mutation.name}` : '',
    options.properties ? `--property ${options.properties.join(',')}` : '',
  ].filter((f) => f !== '');
  return {
    seed: context.seed,
    path: context.path,
    scenario,
    violations,
    shrinks: context.shrinks,
    replay: `pnpm chaos --seed ${context.seed} --path ${context.path} ${flags.join(' ')}`,
    replayScenario: `pnpm chaos --scenario '${JSON.stringify(scenario)}'${options.mutation ? ` --mutation ${options.mutation.name}` : ''}`,
    history: run ? formatHistory(run.history, { from: Math.max(0, first - 3 * T), to: first + T }) : '(the run threw)',
    ...(error === undefined ? {} : { error }),
  };
}

/** A failure as the text `pnpm chaos` and the test suites print. */
export function formatFailure(failure: ChaosFailure): string {
  return [
    `FAILED after ${failure.shrinks} shrinks: seed ${failure.seed}, path ${failure.path}`,
    `replay: ${failure.replay}`,
    `    or: ${failure.replayScenario}`,
    '',
    ...(failure.error ? [`error: ${failure.error}`, ''] : []),
    ...failure.violations.map((v) => `[${v.property}] at ${v.at} ms: ${v.message}`),
    '',
    formatScenario(failure.scenario),
    '',
    'history around the first violation:',
    failure.history,
  ].join('\n');
}

/**
 * `@roster/sim`: whole Roster clusters, real nodes, on virtual time over a fault-injecting store.
 *
 * The scenario language ({@link Scenario}), the runner ({@link runScenario}) and its
 * {@link History}, the properties ({@link checkRun}), fast-check generators
 * ({@link scenarioArbitrary}), chaos runs ({@link runChaos}) and the mutations
 * ({@link MUTATIONS}) that the suite must catch. The package README has the table.
 *
 * @packageDocumentation
 */
export type { Scenario, Step, Action, ActionKind, Timing, NodeId, KeyRef } from './scenario/Scenario.js';
export { ACTION_KINDS, DRAWN_KINDS } from './scenario/Scenario.js';
export { viewsOf, losesData, quietAt, convergenceBound, runLength, type Views } from './scenario/analysis.js';
export { formatScenario } from './scenario/formatScenario.js';
export { runScenario, type Run, type SimulationOptions } from './runtime/Simulation.js';
export { PauseGate } from './runtime/PauseGate.js';
export { costPerMember, type CommandCost, type CostFigures } from './runtime/costMeter.js';
export type { SimNode } from './runtime/SimNode.js';
export { History, type HistoryEntry, type Incarnation, type Claim, type JoinRequest, type Sample } from './history/History.js';
export { formatHistory, type FormatHistoryOptions } from './history/formatHistory.js';
export { toVerifyHistory } from './history/toVerifyHistory.js';
export { PROPERTIES, checkRun, type Measures, type RunCheck } from './properties/index.js';
export type { Property, PropertyName, Violation } from './properties/Property.js';
export { convergenceTime } from './properties/convergence.js';
export { dualLeadershipTime } from './properties/selfFencing.js';
export { leaderships, tokenInversions, type Leadership } from './properties/monotonic.js';
export type { Mutation, MutationContext } from './mutations/Mutation.js';
export { scenarioArbitrary, rollingScenarioArbitrary, type ScenarioConstraints, type RollingScenarioConstraints } from './scenario/arbitraries.js';
export { preemption, rollingRun, type RollingOutcome } from './properties/preemption.js';
export { garbageValue, isGarbage, type GarbageTarget } from './scenario/garbage.js';
export {
  runChaos,
  chaosArbitrary,
  formatFailure,
  type ChaosOptions,
  type ChaosReport,
  type ChaosFailure,
  type ChaosViews,
  type RunClass,
  type DualLeadershipStats,
} from './chaos/runChaos.js';
export { checkScenario } from './scenario/checkScenario.js';
export { MUTATIONS, mutationByName } from './mutations/index.js';

/**
 * `@roster/cli/internal`: the pieces of the `roster` command line that the repository's own private
 * tools build on (`@roster/demo`, `pnpm demo`), so that they declare their flags in the same one
 * table, say problems in the same words, print the same node events and style their pages the
 * same, without a copy that could drift. Not a public API: it follows the cli's needs and may
 * change in any release; a program runs the commands through `@roster/cli`'s `runCli`.
 *
 * @packageDocumentation
 */
export { defineFlags, flag, helpFlag, FlagTable, type Flag, type FlagMap, type FlagValues, type HelpLayout, type ParsedFlags } from './flags.js';
export { configProblem, NODE_TIMING, type Timing } from './configProblems.js';
export { problem } from './problems.js';
export { StopRequest } from './StopRequest.js';
export { toNodeEvent, describeNodeEvent } from '../node/nodeEvents.js';
export { DASHBOARD_CSS, jsonForScript } from '../node/dashboardHtml.js';

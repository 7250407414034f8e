import type { History } from '../history/History.js';
import { validateHistory } from '../history/validateHistory.js';
import { resolveCheckOptions, type CheckOptions } from './CheckOptions.js';
import { failover } from './failover.js';
import { faultOutcomes, type FaultOutcome } from './faultOutcomes.js';
import { fencedWrite } from './fencedWrite.js';
import { operationBudget } from './operationBudget.js';
import { recovery } from './recovery.js';
import type { Rule, RuleName, Violation } from './Rule.js';
import { tokenOrder } from './tokenOrder.js';
import { twoLeaders } from './twoLeaders.js';

/** Every rule, in the order they are checked. */
export const RULES: readonly Rule[] = [twoLeaders, tokenOrder, fencedWrite, failover, recovery, operationBudget];

/** The rule called `name`. */
export function ruleByName(name: RuleName): Rule {
  return RULES.find((r) => r.name === name)!;
}

/** The outcome of {@link checkHistory}. */
export interface CheckReport {
  /** True when no rule was broken. */
  readonly ok: boolean;
  /** Every way the history broke a rule, in time order. */
  readonly violations: Violation[];
  /** What followed each fault, in the order of `history.faults`. */
  readonly faults: FaultOutcome[];
}

/**
 * Checks `history` against the rules (all by default) and measures what followed each fault.
 * Throws an `InvalidHistoryError` (code `HISTORY_INVALID`) for a history it cannot read.
 *
 * @example
 * ```ts
 * const report = checkHistory(history);
 * for (const v of report.violations) console.log(formatViolation(v));
 * ```
 */
export function checkHistory(history: History, options?: CheckOptions): CheckReport {
  validateHistory(history);
  const resolved = resolveCheckOptions(history, options);
  const violations = resolved.rules.flatMap((name) => ruleByName(name).check(history, resolved)).sort((a, b) => a.at - b.at);
  return { ok: violations.length === 0, violations, faults: faultOutcomes(history, resolved) };
}

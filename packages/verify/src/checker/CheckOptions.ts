import type { History } from '../history/History.js';
import type { RuleName } from './Rule.js';
import { InvalidHistoryError } from '../history/validateHistory.js';

/**
 * How lines read at the same millisecond are ordered.
 *
 * - `'ends-first'` (real runs): lines of different nodes reach the observer through different
 *   pipes, so their order within one millisecond means nothing; a leadership that ends and another
 *   that begins at the same `at` do not overlap. Only an overlap of positive length counts, or a
 *   leadership reported inside another.
 * - `'in-order'` (the simulator): `observations` is in the order things happened, even within one
 *   virtual instant; a node reported as leader before another's report ended, at the same instant,
 *   is an overlap of zero length and counts.
 */
export type Simultaneity = 'ends-first' | 'in-order';

/** Options of {@link checkHistory}. Every bound defaults to what the docs promise. */
export interface CheckOptions {
  /** The rules to apply. @defaultValue every rule */
  readonly rules?: readonly RuleName[];
  /** @defaultValue `'ends-first'` */
  readonly simultaneity?: Simultaneity;
  /**
   * A paused (SIGSTOPped) process cannot print: while a `pause` fault holds a node, and after it
   * until the node's next line (at most `resumeGraceMs`), its last report does not count. The
   * simulator, whose paused nodes still report a lapsed lease, turns this off.
   * @defaultValue true
   */
  readonly excusePauses?: boolean;
  /** See {@link CheckOptions.excusePauses}. @defaultValue the interval I */
  readonly resumeGraceMs?: number;
  /** A crashed or cut leader is replaced within this. @defaultValue T + 2I */
  readonly failoverBoundMs?: number;
  /** After the last fault, the cluster converges within this. @defaultValue 2T + 6I (docs/faults.md) */
  readonly recoveryBoundMs?: number;
  /**
   * Fault kinds after which the store may have lost its data (its record of the highest era), so
   * that a fencing token may start over: a drop across one is excused. A store restarted without
   * persistence belongs here.
   * @defaultValue `['store-data-loss']`
   */
  readonly dataLossKinds?: readonly string[];
}

/** {@link CheckOptions} with every default filled in. */
export type ResolvedCheckOptions = Required<CheckOptions>;

/** Every rule name, in the order they are checked. */
export const RULE_NAMES: readonly RuleName[] = ['two-leaders', 'token-order', 'fenced-write', 'failover', 'recovery', 'operation-budget'];

/** Fills in the defaults of `options` from `history`'s timing, rejecting a bad value with an {@link InvalidHistoryError}. */
export function resolveCheckOptions(history: History, options: CheckOptions = {}): ResolvedCheckOptions {
  const { intervalMs: I, timeoutMs: T } = history.timing;
  const resolved: ResolvedCheckOptions = {
    rules: options.rules ?? RULE_NAMES,
    simultaneity: options.simultaneity ?? 'ends-first',
    excusePauses: options.excusePauses ?? true,
    resumeGraceMs: options.resumeGraceMs ?? I,
    failoverBoundMs: options.failoverBoundMs ?? T + 2 * I,
    recoveryBoundMs: options.recoveryBoundMs ?? 2 * T + 6 * I,
    dataLossKinds: options.dataLossKinds ?? ['store-data-loss'],
  };
  for (const name of ['resumeGraceMs', 'failoverBoundMs', 'recoveryBoundMs'] as const) {
    const value = resolved[name];
    if (!Number.isFinite(value) || value < 0) throw new InvalidHistoryError(`Expected \`${name}\` to be a finite number ≥ 0, got ${value}`, name);
  }
  for (const rule of resolved.rules) {
    if (!RULE_NAMES.includes(rule)) throw new InvalidHistoryError(`Expected \`rules\` to hold only ${RULE_NAMES.join(', ')}, got ${JSON.stringify(rule)}`, 'rules');
  }
  if (resolved.simultaneity !== 'ends-first' && resolved.simultaneity !== 'in-order') {
    throw new InvalidHistoryError(`Expected \`simultaneity\` to be 'ends-first' or 'in-order', got ${JSON.stringify(resolved.simultaneity)}`, 'simultaneity');
  }
  return resolved;
}

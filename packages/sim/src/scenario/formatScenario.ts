import { convergenceBound, quietAt, viewsOf } from './analysis.js';
import type { Scenario, Step } from './Scenario.js';

/**
 * A scenario as readable text, one step a line.
 *
 * @example
 * ```text
 * scenario seed=42 I=1000 T=5000, per-node views, quiet from 23400 ms, converged by 37400 ms
 *        0 ms  start n1
 *     4200 ms  crash n1
 *     5000 ms  keyUnavailable leader 0 @n2 for 3000 ms
 *     6000 ms  staleRouting leader 1 @n3 for 4000 ms
 *     8000 ms  pause n3 for 6000 ms
 *     9500 ms  garbage leader 1 "1  0 4 ghost ghost"
 * ```
 */
export function formatScenario(scenario: Scenario): string {
  const { intervalMs: I, timeoutMs: T, settleMs, operationTimeoutMs, renewDeadlineMs } = scenario.timing;
  const quiet = quietAt(scenario);
  const head = `scenario seed=${scenario.seed} I=${I} T=${T}${settleMs === undefined ? '' : ` settle=${settleMs}`}${operationTimeoutMs === undefined ? '' : ` op-timeout=${operationTimeoutMs}`}${renewDeadlineMs === undefined ? '' : ` R=${renewDeadlineMs}`}, ${viewsOf(scenario)} views, quiet from ${quiet} ms, converged by ${quiet + convergenceBound(scenario.timing)} ms`;
  return [head, ...scenario.steps.map((s) => `${`${s.at}`.padStart(8)} ms  ${formatStep(s)}`)].join('\n');
}

/** One step as text, without its time: `crash n1`, `storeOutage for 2000 ms`. */
export function formatStep(step: Step): string {
  const scope = 'node' in step && step.node !== undefined && step.do !== 'start' && step.do !== 'redeploy' && step.do !== 'stop' && step.do !== 'resign' && step.do !== 'crash' && step.do !== 'restart' && step.do !== 'pause' ? ` @${step.node}` : '';
  switch (step.do) {
    case 'start':
      return `start ${step.node}${step.observer ? ' (observer)' : ''}${step.priority ? ` priority ${step.priority}` : ''}`;
    case 'redeploy':
      return `redeploy ${step.node ?? '(the deploy tool picks)'} onto priority ${step.priority}${step.downMs ? `, down for ${step.downMs} ms` : ''}`;
    case 'stop':
    case 'crash':
    case 'restart':
      return `${step.do} ${step.node}`;
    case 'resign':
      return step.node === undefined ? 'resign (whichever node leads)' : `resign ${step.node}`;
    case 'pause':
      return `pause ${step.node} for ${step.forMs} ms`;
    case 'keyUnavailable':
      return `keyUnavailable ${step.keys}${scope} for ${step.forMs} ms${step.hang === true ? ', hanging' : stall(step.stallMs)}`;
    case 'staleRouting':
      return `staleRouting ${step.keys}${scope} for ${step.forMs} ms`;
    case 'keyRollback':
      return `keyRollback ${step.keys} for ${step.forMs} ms${step.hang === true ? ', hanging' : ''}, back with its old data${step.flakyMs ? `, flaky for ${step.flakyMs} ms` : ''}`;
    case 'storeOutage':
      return `storeOutage${scope} for ${step.forMs} ms${stall(step.stallMs)}${step.flakyMs ? `, flaky for ${step.flakyMs} ms` : ''}`;
    case 'failures':
      return `failures p=${step.probability}${step.after ? ' after applying' : ''}${ops(step.ops)}${on(step.keys)}${scope} for ${step.forMs} ms`;
    case 'latency':
      return `latency ${step.minMs}–${step.maxMs} ms${step.mode === 'apply-then-delay' ? ' apply-then-delay' : ''}${on(step.keys)}${scope} for ${step.forMs} ms`;
    case 'capacity':
      return `capacity ${step.opsPerSecond} operations/s, queue ≤ ${step.maxQueueMs} ms, for ${step.forMs} ms`;
    case 'connections':
      return `connections ${step.size} × ${step.serviceMs} ms${step.maxWaitMs === undefined ? '' : `, wait ≤ ${step.maxWaitMs} ms`}${scope} for ${step.forMs} ms`;
    case 'flush':
      return 'flush (the store loses all its data)';
    case 'garbage':
      return `garbage ${step.key} ${JSON.stringify(step.value)}${step.repeat === undefined ? '' : ` × ${step.repeat}`}`;
  }
}

function stall(ms: number | undefined): string {
  return ms ? ` (stall ${ms} ms)` : '';
}

function ops(list: readonly string[] | undefined): string {
  return list === undefined ? '' : ` [${list.join(', ')}]`;
}

function on(keys: string | undefined): string {
  return keys === undefined ? '' : ` on ${keys}`;
}

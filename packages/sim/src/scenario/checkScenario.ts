import { MAX_PRIORITY } from '@roster/follower';
import { ConfigError } from '@roster/kv-adapter';
import { namesIdKeyOf, parseKeyRef } from './keys.js';
import type { Scenario, Step } from './Scenario.js';

const NODE = /^[A-Za-z0-9._@-]{1,128}$/;
const OPS = new Set(['get', 'set', 'delete', 'append', 'take', 'getRange', 'exchange', 'compareAndSet', 'time']);

/**
 * Checks that `value` (e.g. parsed from JSON) is a valid {@link Scenario} and returns it; throws a
 * `ConfigError` naming the first bad field otherwise. Steps must be in time order.
 *
 * @example
 * ```ts
 * const scenario = checkScenario(JSON.parse(text));
 * ```
 */
/** The largest garbage value a scenario may write, in UTF-8 bytes (below the stores' 1 MiB value limit). */
export const MAX_GARBAGE_BYTES = 512 * 1024;

export function checkScenario(value: unknown): Scenario {
  const s = value as Scenario;
  if (typeof s !== 'object' || s === null) throw new ConfigError('scenario', value, 'Expected a scenario object');
  if (!Number.isSafeInteger(s.seed)) throw new ConfigError('seed', s.seed, 'Expected `seed` to be an integer');
  const t = s.timing;
  if (typeof t !== 'object' || t === null || !count(t.intervalMs) || t.intervalMs < 1 || !count(t.timeoutMs) || t.timeoutMs <= 2 * t.intervalMs) {
    throw new ConfigError('timing', t, 'Expected `timing` to be { intervalMs, timeoutMs } with timeoutMs greater than twice intervalMs');
  }
  if (t.settleMs !== undefined && (!count(t.settleMs) || t.settleMs < 1 || t.settleMs > t.intervalMs)) {
    throw new ConfigError('timing.settleMs', t.settleMs, 'Expected `timing.settleMs` to be an integer from 1 to intervalMs');
  }
  if (t.renewDeadlineMs !== undefined && (!count(t.renewDeadlineMs) || t.renewDeadlineMs <= t.intervalMs || t.renewDeadlineMs >= t.timeoutMs - t.intervalMs)) {
    throw new ConfigError('timing.renewDeadlineMs', t.renewDeadlineMs, 'Expected `timing.renewDeadlineMs` to be an integer above intervalMs and below timeoutMs − intervalMs');
  }
  if (t.operationTimeoutMs !== undefined && (!count(t.operationTimeoutMs) || t.operationTimeoutMs < 1 || t.operationTimeoutMs > t.intervalMs)) {
    throw new ConfigError('timing.operationTimeoutMs', t.operationTimeoutMs, 'Expected `timing.operationTimeoutMs` to be an integer from 1 to intervalMs');
  }
  if (!Array.isArray(s.steps)) throw new ConfigError('steps', s.steps, 'Expected `steps` to be a list');
  let last = 0;
  s.steps.forEach((step, i) => {
    checkStep(step, `steps[${i}]`);
    if (step.at < last) throw new ConfigError(`steps[${i}].at`, step.at, `Expected steps in time order (previous at ${last})`);
    last = step.at;
  });
  return s;
}

function count(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function checkStep(step: Step, field: string): void {
  const bad = (name: string, v: unknown, what: string): never => {
    throw new ConfigError(`${field}.${name}`, v, `Expected \`${name}\` to be ${what}`);
  };
  if (typeof step !== 'object' || step === null) bad('', step, 'a step object');
  if (!count(step.at)) bad('at', step.at, 'a non-negative integer (ms)');
  const node = (v: unknown, optional: boolean) => {
    if (optional && v === undefined) return;
    if (typeof v !== 'string' || !NODE.test(v)) bad('node', v, 'a node id');
  };
  const key = (v: unknown, optional: boolean) => {
    if (optional && v === undefined) return;
    if (typeof v !== 'string') bad('keys', v, 'a key like "leader 0"');
    parseKeyRef(v as string);
  };
  const priority = (v: unknown) => {
    if (v !== undefined && !(count(v) && v <= MAX_PRIORITY)) bad('priority', v, `an integer from 0 to ${MAX_PRIORITY}`);
  };
  switch (step.do) {
    case 'start':
      priority(step.priority);
      return node(step.node, false);
    case 'redeploy':
      node(step.node, true);
      if (step.priority === undefined) bad('priority', step.priority, `an integer from 0 to ${MAX_PRIORITY}`);
      priority(step.priority);
      if (step.downMs !== undefined && !count(step.downMs)) bad('downMs', step.downMs, 'a non-negative integer');
      return;
    case 'stop':
    case 'crash':
    case 'restart':
      return node(step.node, false);
    case 'resign':
      return node(step.node, true);
    case 'pause':
      node(step.node, false);
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      return;
    case 'keyUnavailable':
      key(step.keys, false);
      node(step.node, true);
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (step.stallMs !== undefined && !count(step.stallMs)) bad('stallMs', step.stallMs, 'a non-negative integer');
      if (step.hang !== undefined && typeof step.hang !== 'boolean') bad('hang', step.hang, 'a boolean');
      return;
    case 'staleRouting':
      node(step.node, false);
      key(step.keys, false);
      // Its own id key too would make it a follower of a crashed leader, to all it can tell.
      if (namesIdKeyOf(step.keys, step.node)) bad('keys', step.keys, `keys other than ${step.node}'s own id key (a node that can read neither its leader's key nor its PONGs cannot tell its leader from a crashed one)`);
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      return;
    case 'keyRollback':
      key(step.keys, false);
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (step.hang !== undefined && typeof step.hang !== 'boolean') bad('hang', step.hang, 'a boolean');
      if (step.flakyMs !== undefined && !count(step.flakyMs)) bad('flakyMs', step.flakyMs, 'a non-negative integer');
      return;
    case 'storeOutage':
      node(step.node, true);
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (step.stallMs !== undefined && !count(step.stallMs)) bad('stallMs', step.stallMs, 'a non-negative integer');
      if (step.flakyMs !== undefined && !count(step.flakyMs)) bad('flakyMs', step.flakyMs, 'a non-negative integer');
      return;
    case 'failures':
      key(step.keys, true);
      node(step.node, true);
      if (typeof step.probability !== 'number' || !(step.probability >= 0 && step.probability <= 1)) bad('probability', step.probability, 'a number from 0 to 1');
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (step.ops !== undefined && (!Array.isArray(step.ops) || step.ops.some((op) => !OPS.has(op)))) bad('ops', step.ops, 'a list of KV operations');
      return;
    case 'latency':
      key(step.keys, true);
      node(step.node, true);
      if (!count(step.minMs)) bad('minMs', step.minMs, 'a non-negative integer');
      if (!count(step.maxMs) || step.maxMs < step.minMs) bad('maxMs', step.maxMs, 'an integer at least minMs');
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (step.mode !== undefined && step.mode !== 'delay-then-apply' && step.mode !== 'apply-then-delay') bad('mode', step.mode, "'delay-then-apply' or 'apply-then-delay'");
      return;
    case 'capacity':
      if (typeof step.opsPerSecond !== 'number' || !(step.opsPerSecond > 0) || !Number.isFinite(step.opsPerSecond)) bad('opsPerSecond', step.opsPerSecond, 'a positive number');
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (!count(step.maxQueueMs)) bad('maxQueueMs', step.maxQueueMs, 'a non-negative integer');
      return;
    case 'connections':
      node(step.node, true);
      if (!Number.isInteger(step.size) || step.size < 1) bad('size', step.size, 'a positive integer');
      if (!count(step.serviceMs)) bad('serviceMs', step.serviceMs, 'a non-negative integer');
      if (!count(step.forMs)) bad('forMs', step.forMs, 'a non-negative integer');
      if (step.maxWaitMs !== undefined && !count(step.maxWaitMs)) bad('maxWaitMs', step.maxWaitMs, 'a non-negative integer');
      return;
    case 'flush':
      return;
    case 'garbage':
      key(step.key, false);
      if (typeof step.value !== 'string') bad('value', step.value, 'a string');
      if (step.repeat !== undefined && !(Number.isInteger(step.repeat) && step.repeat >= 1 && Buffer.byteLength(step.value) * step.repeat <= MAX_GARBAGE_BYTES)) {
        bad('repeat', step.repeat, `a positive integer, with value × repeat at most ${MAX_GARBAGE_BYTES} bytes`);
      }
      return;
    default:
      bad('do', (step as { do: unknown }).do, 'one of start, stop, resign, crash, restart, redeploy, pause, keyUnavailable, keyRollback, staleRouting, storeOutage, failures, latency, flush, garbage');
  }
}

import type { RosterUpdate } from '@roster/election';
import { formatOperation } from '@roster/testing';
import { formatStep } from '../scenario/formatScenario.js';
import type { History, HistoryEntry } from './History.js';

/** Options of {@link formatHistory}. */
export interface FormatHistoryOptions {
  /** Only what happened from this virtual time on. @defaultValue 0 */
  readonly from?: number;
  /** Only what happened up to this virtual time. @defaultValue the end of the run */
  readonly to?: number;
  /** Include the KV operations. @defaultValue true */
  readonly operations?: boolean;
  /** At most this many operations, the latest in the range. @defaultValue 300 */
  readonly maxOperations?: number;
}

/**
 * A run's history as readable text, one event a line, in time order: scenario steps (`──`), each
 * node's role, leader (era, nonce, fencing token) and member list as it changed, who held
 * `isLeader()` and whether the cluster had converged (`==`), and the KV operations (`op`).
 *
 * @example
 * ```text
 *     5000 ms  ── crash n1
 *    10500 ms  n2     role follower → candidate (stale)
 *    11000 ms  n2     role candidate → leader (confirmed)
 *    11000 ms  n2     leader n2 era 2 nonce 0 token 3071
 *    11000 ms  ==     leaders [n2]
 *    11000 ms  op       11000ms  +0 n2    compareAndSet "roster/sim/chaos/leader 0" "2 0 1 n2 n2 n3" → ok swapped
 * ```
 */
export function formatHistory(history: History, options: FormatHistoryOptions = {}): string {
  const from = options.from ?? 0;
  const to = options.to ?? history.end;
  const lines: { at: number; order: number; text: string }[] = [];
  let order = 0;
  const push = (at: number, who: string, text: string): void => {
    if (at >= from && at <= to) lines.push({ at, order: order++, text: `${`${at}`.padStart(8)} ms  ${who.padEnd(6)} ${text}` });
  };
  for (const entry of history.entries) push(entry.at, who(entry), describe(entry));
  for (const s of history.samples) push(s.at, '==', `leaders [${s.leaders.join(' ')}]${s.converged ? ' converged' : ''}`);
  for (const o of history.overlaps) push(o.at, '!!', `${o.leaders.join(' and ')} both have isLeader() true at this instant`);
  if (options.operations ?? true) {
    const ops = history.operations.filter((r) => r.doneAt >= from && r.doneAt <= to).slice(-(options.maxOperations ?? 300));
    for (const r of ops) push(r.doneAt, 'op', formatOperation(r).trimStart());
  }
  lines.sort((a, b) => a.at - b.at || a.order - b.order);
  return lines.map((l) => l.text).join('\n');
}

function who(entry: HistoryEntry): string {
  if (entry.kind === 'step') return '──';
  if (entry.kind === 'anomaly') return '!!';
  return entry.node;
}

function describe(entry: HistoryEntry): string {
  switch (entry.kind) {
    case 'step':
      return `${formatStep(entry.step)}${entry.skipped === undefined ? '' : ` (skipped: ${entry.skipped})`}`;
    case 'update':
      return describeUpdate(entry.update);
    case 'resumed':
      return 'resumed';
    case 'stopped':
      return 'graceful stop done';
    case 'anomaly':
      return `${entry.node === undefined ? '' : `${entry.node}: `}${entry.message}`;
  }
}

/** One node update as text: `role follower → candidate (stale)`, `leader n2 era 2 nonce 0 token 3071`. */
export function describeUpdate(update: RosterUpdate): string {
  switch (update.type) {
    case 'role':
      return `role ${update.previous} → ${update.role} (${update.reason})`;
    case 'leader':
      return update.leader === undefined
        ? 'leader none'
        : `leader ${update.leader.id} era ${update.leader.era} nonce ${update.leader.nonce} token ${update.leader.token}`;
    case 'members': {
      const delta = [...update.added.map((id) => `+${id}`), ...update.removed.map((id) => `-${id}`)].join(' ');
      return `members v${update.version} [${update.members.map((m) => m.id).join(' ')}]${delta ? ` ${delta}` : ''}`;
    }
    case 'goodbye':
      return `goodbye from ${update.leader.id} era ${update.leader.era}`;
    case 'stopped':
      return 'stopped';
  }
}

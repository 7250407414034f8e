import { RosterError } from '@roster/kv-adapter';
import type { History } from './History.js';

/** A history (or a check option) the checker cannot read: code `HISTORY_INVALID`, with the field at fault. */
export class InvalidHistoryError extends RosterError {
  /** The field at fault, e.g. `timing.intervalMs` or `observations[3].at`. */
  readonly field: string;
  constructor(message: string, field: string) {
    super('HISTORY_INVALID', message);
    this.field = field;
  }
}

/**
 * Checks that `history` can be read: positive timing, `start ≤ end`, observations sorted by `at`,
 * tokens that are decimal strings, fault windows with `from ≤ to`. Throws an
 * {@link InvalidHistoryError} naming the first bad field.
 */
export function validateHistory(history: History): void {
  const { intervalMs, timeoutMs, renewDeadlineMs } = history.timing;
  for (const [name, value] of [['intervalMs', intervalMs], ['timeoutMs', timeoutMs], ['renewDeadlineMs', renewDeadlineMs]] as const) {
    if (!Number.isFinite(value) || value <= 0) throw new InvalidHistoryError(`Expected \`timing.${name}\` to be a positive number of ms, got ${value}`, `timing.${name}`);
  }
  if (!(history.start <= history.end)) throw new InvalidHistoryError(`Expected \`start\` ≤ \`end\`, got ${history.start} and ${history.end}`, 'start');
  let last = Number.NEGATIVE_INFINITY;
  history.observations.forEach((o, i) => {
    if (!Number.isFinite(o.at) || o.at < last) throw new InvalidHistoryError(`Expected \`observations\` sorted by \`at\`, got ${o.at} after ${last} at index ${i}`, `observations[${i}].at`);
    last = o.at;
    if (o.event.event === 'leader' && o.event.token !== null && !/^\d+$/.test(o.event.token)) {
      throw new InvalidHistoryError(`Expected a decimal token, got ${JSON.stringify(o.event.token)}`, `observations[${i}].event.token`);
    }
  });
  history.writes.forEach((w, i) => {
    for (const field of ['token', 'highestSeen'] as const) {
      if (!/^\d+$/.test(w[field])) throw new InvalidHistoryError(`Expected a decimal \`${field}\`, got ${JSON.stringify(w[field])}`, `writes[${i}].${field}`);
    }
  });
  history.faults.forEach((f, i) => {
    if (!(f.from <= f.to)) throw new InvalidHistoryError(`Expected a fault's \`from\` ≤ \`to\`, got ${f.from} and ${f.to} (${f.kind} of ${f.target})`, `faults[${i}]`);
  });
}

import type { KVOperation } from './FaultOptions.js';

/** One operation through a `FaultyKV` view, as recorded once it settled. */
export interface OperationRecord {
  /** Order in which operations settled, from 1, across every view of the injector. */
  readonly seq: number;
  /** Clock time (`clock.now()`) when the operation was issued. */
  readonly at: number;
  /** Clock time when it settled. */
  readonly doneAt: number;
  /** The view's node, if it has one. */
  readonly node: string | undefined;
  readonly op: KVOperation;
  /** The key; absent for `time()`. */
  readonly key?: string;
  /** The value written (set, append, compareAndSet), shortened. */
  readonly value?: string;
  readonly outcome: 'ok' | 'error';
  /** On success, what was returned, shortened (`null`, `true`, a length, `swapped`…). */
  readonly result?: string;
  /** On error, the `RosterError` code (absent for an error without a code). */
  readonly code?: string;
  /** The fault that failed or delayed the operation, as `kind#id`, e.g. `latency#3`. */
  readonly fault?: string;
}

/** Keeps the latest `capacity` records, oldest first: memory stays bounded however long a run is. */
export class OperationLog {
  readonly capacity: number;
  readonly #ring: OperationRecord[] = [];
  #next = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  push(record: OperationRecord): void {
    if (this.capacity === 0) return;
    if (this.#ring.length < this.capacity) this.#ring.push(record);
    else this.#ring[this.#next] = record;
    this.#next = (this.#next + 1) % this.capacity;
  }

  /** The records kept, oldest first. */
  toArray(): OperationRecord[] {
    if (this.#ring.length < this.capacity) return [...this.#ring];
    return [...this.#ring.slice(this.#next), ...this.#ring.slice(0, this.#next)];
  }
}

const SHORT = 60;

/** `text` as a JSON string, cut to about 60 characters. */
export function shorten(text: string): string {
  const json = JSON.stringify(text);
  return json.length > SHORT ? `${json.slice(0, SHORT - 2)}…"` : json;
}

/**
 * One readable line for a record, for printing a run's history.
 *
 * @example
 * ```ts
 * formatOperation(record);
 * // '  1200ms +15 A     set "leader 0" "E1 N0 V3 A" → ok [latency#2]'
 * // '  1300ms  +0 B     get "leader 0" → KV_KEY_UNAVAILABLE [keyUnavailable#4]'
 * ```
 */
export function formatOperation(record: OperationRecord): string {
  const when = `${String(record.at).padStart(6)}ms ${`+${record.doneAt - record.at}`.padStart(3)}`;
  const subject = [record.op, record.key === undefined ? '' : JSON.stringify(record.key), record.value ?? '']
    .filter((part) => part !== '')
    .join(' ');
  const outcome = record.outcome === 'ok' ? `ok${record.result === undefined ? '' : ` ${record.result}`}` : (record.code ?? 'error');
  const fault = record.fault === undefined ? '' : ` [${record.fault}]`;
  return `${when} ${(record.node ?? '-').padEnd(5)} ${subject} → ${outcome}${fault}`;
}

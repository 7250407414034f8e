/**
 * A heartbeat entry that could not be parsed. The table treats it as empty (so a contender may
 * take it over, through compare-and-set on exactly these bytes) and reports it: a `warn` log line
 * when the garbage changes, the `onCorruptEntry` callback and a counter on every read.
 */
export interface CorruptEntryReport {
  /** The role type whose entry is corrupt. */
  readonly utype: string;
  /** The store key that holds it. */
  readonly key: string;
  /** Why it was rejected, e.g. `"not JSON"`, `"timestamp is not a finite number ≥ 0"`. */
  readonly reason: string;
  /** The length of the value in UTF-16 units (-1 when the store refused to return it). */
  readonly length: number;
  /** The first 120 characters of the value, for the log. */
  readonly excerpt: string;
}

import type { Logger } from '@roster/kv-adapter';
import type { CorruptEntryReport } from '../corruptEntry.js';

const EXCERPT = 120;

/**
 * Reports corrupt entries: a counter and the callback on every read, a `warn` line only when the
 * garbage at a key changes (a table polled every I would otherwise log the same line forever).
 */
export class CorruptionReporter {
  #count = 0;
  readonly #lastLogged = new Map<string, string>();

  constructor(
    private readonly logger: Logger,
    private readonly onCorrupt: ((report: CorruptEntryReport) => void) | undefined,
  ) {}

  /** Corrupt reads so far. */
  get count(): number {
    return this.#count;
  }

  report(utype: string, key: string, raw: string | null, reason: string): void {
    this.#count++;
    const report: CorruptEntryReport = {
      utype,
      key,
      reason,
      length: raw === null ? -1 : raw.length,
      excerpt: raw === null ? '' : raw.slice(0, EXCERPT),
    };
    const fingerprint = `${report.length}:${report.excerpt}:${reason}`;
    if (this.#lastLogged.get(key) !== fingerprint) {
      this.#lastLogged.set(key, fingerprint);
      this.logger.warn({ utype, key, reason, length: report.length, excerpt: report.excerpt }, 'primary: corrupt heartbeat entry treated as empty');
    }
    try {
      this.onCorrupt?.(report);
    } catch (error) {
      this.logger.error({ utype, error }, 'primary: onCorruptEntry threw');
    }
  }

  /** Forgets the last logged garbage at `key` (it was replaced). */
  cleared(key: string): void {
    this.#lastLogged.delete(key);
  }
}

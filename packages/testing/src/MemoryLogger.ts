import type { LogLevel } from '@roster/kv-adapter';
import { LevelLogger } from '@roster/kv-adapter/internal';

/** One call recorded by a {@link MemoryLogger}. */
export interface LogEntry {
  readonly level: LogLevel;
  readonly fields: object;
  readonly message?: string;
}

/**
 * A logger that records every call in memory, for tests that assert what was logged (and how
 * often: Roster logs a fault once per state change, not once per operation).
 *
 * @example
 * ```ts
 * const logger = new MemoryLogger();
 * logger.warn({ key: 'k' }, 'garbage in key');
 * logger.entries[0]?.level; // 'warn'
 * ```
 */
export class MemoryLogger extends LevelLogger {
  /** Every entry logged, oldest first. */
  readonly entries: LogEntry[] = [];
  protected log(level: LogLevel, fields: object, message?: string): void {
    this.entries.push({ level, fields, message });
  }
}

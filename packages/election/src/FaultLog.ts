import type { Logger } from '@roster/kv-adapter';

/**
 * Logs a failing operation once per change of state, not once per attempt: the first failure as
 * a warning, nothing while it goes on failing, and (when `recovered` is given) one line when it
 * works again.
 */
export class FaultLog {
  readonly #logger: Logger;
  readonly #failed: string;
  readonly #recovered: string | undefined;
  #failing = false;

  constructor(logger: Logger, failed: string, recovered?: string) {
    this.#logger = logger;
    this.#failed = failed;
    this.#recovered = recovered;
  }

  /** Whether the last attempt failed. */
  get failing(): boolean {
    return this.#failing;
  }

  /** The operation failed with `error`: logged if it worked before. */
  failed(error: unknown): void {
    if (!this.#failing) this.#logger.warn({ err: error }, this.#failed);
    this.#failing = true;
  }

  /** The operation worked: logged (`fields` with the message given) if it failed before. */
  worked(fields: Record<string, unknown> = {}): void {
    if (this.#failing && this.#recovered !== undefined) this.#logger.info(fields, this.#recovered);
    this.#failing = false;
  }
}

import type { CliIO, StopSignal } from '../commands/Command.js';
import { ExitCode } from '../CliError.js';

/**
 * Turns SIGINT/SIGTERM into a two-step stop: the first signal aborts {@link signal} (stop
 * gracefully), a second one resolves {@link forced} with 130 or 143 (give up and exit now).
 * {@link dispose} stops listening.
 */
export class StopRequest {
  readonly #controller = new AbortController();
  readonly #unlisten: () => void;
  #first: StopSignal | undefined;
  #force!: (code: number) => void;
  /** Resolves with the exit code when a second signal arrives. */
  readonly forced: Promise<number> = new Promise((resolve) => (this.#force = resolve));

  constructor(io: CliIO, onFirst?: (signal: StopSignal) => void, onSecond?: (signal: StopSignal) => void) {
    this.#unlisten = io.onSignal((signal) => {
      if (this.#first === undefined) {
        this.#first = signal;
        onFirst?.(signal);
        this.#controller.abort(new Error(`stopped by ${signal}`));
        return;
      }
      onSecond?.(signal);
      this.#force(signal === 'SIGINT' ? ExitCode.interruptedSigint : ExitCode.interruptedSigterm);
    });
  }

  /** Aborts at the first signal. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The first signal received, if any. */
  get received(): StopSignal | undefined {
    return this.#first;
  }

  /** Requests a stop without a signal (e.g. the demo's duration ran out). */
  request(): void {
    this.#controller.abort(new Error('stop requested'));
  }

  /** Resolves when a stop is requested. */
  whenRequested(): Promise<void> {
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  dispose(): void {
    this.#unlisten();
  }
}

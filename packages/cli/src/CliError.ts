/** Exit codes of the `roster` command line, documented in docs/cli.md. */
export const ExitCode = Object.freeze({
  /** Stopped gracefully, or the command finished. */
  ok: 0,
  /** An unexpected failure after start (a bug, or a store error no retry could absorb). */
  failure: 1,
  /** Bad arguments, an invalid configuration, or a store unreachable at start. Nothing ran. */
  usage: 2,
  /** `roster primary get`: the role type has no primary (empty, expired or corrupt entry). */
  noPrimary: 3,
  /**
   * `roster primary run --exit-on-loss`: the instance stopped acting as primary (superseded,
   * vanished, or its deadline passed); a supervisor should restart it.
   */
  lostPrimary: 4,
  /**
   * `roster verify`: no violation, but the run was to cut the nodes' links to the store and no cut
   * reached a store connection (the store reached another way, e.g. over TLS): the cuts proved nothing.
   */
  inconclusive: 5,
  /** A second SIGINT while stopping: exited at once (128 + 2). */
  interruptedSigint: 130,
  /** A second SIGTERM while stopping: exited at once (128 + 15). */
  interruptedSigterm: 143,
});

/**
 * A problem the user can fix, reported as one line on stderr with exit code 2 (or `exitCode`).
 * Commands throw it; `runCli` prints `message` and exits.
 */
export class CliError extends Error {
  /** The process exit code. @defaultValue 2 */
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? ExitCode.usage;
  }
}

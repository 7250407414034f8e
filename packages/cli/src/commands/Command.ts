/** The terminal a command writes to: `process.stdout` or a test double. */
export interface OutputStream {
  write(text: string): unknown;
  /** True when the stream is a terminal (the demo then redraws in place). */
  readonly isTTY?: boolean;
  /** The terminal's width in columns, when it is one. */
  readonly columns?: number;
}

/** The signals a command may handle to stop gracefully. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/**
 * Everything a command may touch of its process. Only `bin/` builds one from `process`; the
 * commands themselves never read `process.argv`, `process.env` or write to `process.stdout`.
 */
export interface CliIO {
  /** Results: events, tables, help. */
  readonly stdout: OutputStream;
  /** Logs and error messages. */
  readonly stderr: OutputStream;
  /** The environment variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Calls `handler` on each SIGINT or SIGTERM; returns the function that stops listening. */
  onSignal(handler: (signal: StopSignal) => void): () => void;
  /**
   * Calls `handler` on each SIGUSR2, on which `roster node` resigns leadership; returns the
   * function that stops listening. Optional: without it, a command has no resign signal.
   */
  onResignSignal?(handler: () => void): () => void;
}

/**
 * One `roster` subcommand. To add one, write `src/commands/<name>.ts` exporting a `Command` whose
 * flags are declared once in a table (`defineFlags`, src/internal/flags.ts: the parser, the
 * options of its `help`, its table in docs/cli.md and its messages come from it), list it in
 * `src/commands/index.ts`, and add its docs/cli.md section to test/cliDocs.test.ts.
 */
export interface Command {
  /** The word after `roster`, e.g. `"node"`. */
  readonly name: string;
  /** One line for `roster --help`. */
  readonly summary: string;
  /** The full `roster <name> --help` text. */
  readonly help: string;
  /**
   * Runs the command with the arguments after its name; resolves to the process exit code. Throws
   * `CliError` for problems the user can fix (printed as one line, exit code 2).
   */
  run(args: readonly string[], io: CliIO): Promise<number>;
}

/** A {@link CliIO} on the real process. */
export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    onSignal(handler) {
      const onInt = (): void => handler('SIGINT');
      const onTerm = (): void => handler('SIGTERM');
      // A closed stdout (`roster node --json | head -1`) asks for a graceful stop, as SIGPIPE would.
      let piped = false;
      const onStdoutError = (error: NodeJS.ErrnoException): void => {
        if (error.code !== 'EPIPE' || piped) return;
        piped = true;
        handler('SIGTERM');
      };
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      process.stdout.on('error', onStdoutError);
      return () => {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
        process.stdout.off('error', onStdoutError);
      };
    },
    onResignSignal(handler) {
      const onUsr2 = (): void => handler();
      process.on('SIGUSR2', onUsr2);
      return () => void process.off('SIGUSR2', onUsr2);
    },
  };
}

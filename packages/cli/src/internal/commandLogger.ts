import type { CliIO } from '../commands/Command.js';
import type { LogFormat } from './logFormat.js';
import { stderrSink } from './sidecarPino.js';
import { StderrLogger } from './StderrLogger.js';

/** Options of {@link commandLoggers}. */
export interface CommandLoggerOptions {
  /** `--verbose`: debug entries from the command and the library. */
  readonly verbose: boolean;
  /** `--log-format`. @defaultValue "text" */
  readonly format?: LogFormat;
  /** Passwords to hide in every line, beyond those written in URLs. */
  readonly secrets?: readonly string[];
  /** Sees every entry as a text line. */
  readonly tap?: (line: string) => void;
}

/**
 * The loggers of a long-running command on stderr, both through one pino logger: `log` for the
 * command's own lines (info and above, debug with `--verbose`) and `libraryLog` for the library's
 * (warnings and errors, all with `--verbose`), in one format, hiding the store's passwords.
 */
export function commandLoggers(io: CliIO, options: CommandLoggerOptions): { log: StderrLogger; libraryLog: StderrLogger } {
  const log = new StderrLogger(stderrSink(io.stderr), {
    level: options.verbose ? 'debug' : 'info',
    format: options.format ?? 'text',
    secrets: options.secrets ?? [],
    ...(options.tap && { tap: options.tap }),
  });
  return { log, libraryLog: options.verbose ? log : log.atLeast('warn') };
}

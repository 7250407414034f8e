import type { CliIO } from '../commands/Command.js';
import { CliError, ExitCode } from '../CliError.js';
import { requestedLogFormat } from './logFormat.js';
import { knownSecrets, SecretScrubber } from './scrubSecrets.js';
import { stderrSink } from './sidecarPino.js';
import { StderrLogger } from './StderrLogger.js';

/** What {@link reportFatal} reports. */
export interface FatalReport {
  /** The program name, for an unexpected error: `roster: unexpected error: …`. */
  readonly program: string;
  /** The command's arguments, for `--log-format`. */
  readonly args: readonly string[];
  /** What the command threw. */
  readonly error: unknown;
}

/**
 * Writes the line that ends a failed run on stderr and returns the exit code: a {@link CliError}'s
 * message (its exit code, 2 by default), or any other error with its stack (exit code 1). With
 * `--log-format json` among the arguments, the line is one pino JSON object at level `fatal` (60),
 * with `exitCode`, and `err` for an unexpected error; otherwise it is the plain message, one line
 * for a CliError. No password is printed: the passwords of the URLs among the arguments and in
 * `ROSTER_STORE_URL`, and `ROSTER_STORE_PASSWORD`, are hidden wherever they appear (`knownSecrets`).
 */
export function reportFatal(io: CliIO, report: FatalReport): number {
  const { error, program } = report;
  // The passwords of the URLs in the arguments and the environment, and ROSTER_STORE_PASSWORD.
  const secrets = knownSecrets(report.args, io.env);
  const sink = stderrSink(io.stderr);
  const exitCode = error instanceof CliError ? error.exitCode : ExitCode.failure;
  if (requestedLogFormat(report.args) === 'json') {
    const log = new StderrLogger(sink, { format: 'json', level: 'fatal', secrets });
    if (error instanceof CliError) log.fatal({ exitCode }, error.message);
    else log.fatal({ exitCode, err: error }, `${program}: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return exitCode;
  }
  const scrubber = new SecretScrubber(secrets);
  if (error instanceof CliError) sink.write(scrubber.scrub(`${error.message}\n`));
  else sink.write(scrubber.scrub(`${program}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`));
  return exitCode;
}

import { readFileSync } from 'node:fs';
import { commands as builtIn } from './commands/index.js';
import type { CliIO, Command } from './commands/Command.js';
import { CliError, ExitCode } from './CliError.js';
import { reportFatal } from './internal/fatalLine.js';
import { helpItem, wrap } from './internal/flags.js';
import { STORE_KINDS } from './internal/storeForms.js';

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The program name in messages. @defaultValue "roster" */
  readonly program?: string;
  /** The subcommands. @defaultValue every built-in command */
  readonly commands?: readonly Command[];
}

/**
 * Runs the `roster` command line with `args` (the arguments after the program name) and resolves
 * to the exit code; never rejects. A {@link CliError} becomes one line on stderr and its exit code;
 * any other error is printed with its stack and exit code 1. With `--log-format json` among the
 * command's arguments, that line is one pino JSON object at level `fatal` (see `reportFatal`).
 *
 * @example
 * ```ts
 * process.exit(await runCli(process.argv.slice(2), processIO()));
 * ```
 */
export async function runCli(args: readonly string[], io: CliIO, options: RunCliOptions = {}): Promise<number> {
  const program = options.program ?? 'roster';
  const commands = options.commands ?? builtIn;
  const [name, ...rest] = args;
  try {
    if (name === '--version' || name === '-V') {
      io.stdout.write(`${version()}\n`);
      return ExitCode.ok;
    }
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      const topic = name === 'help' ? rest[0] : undefined;
      const command = topic === undefined ? undefined : find(commands, topic, program);
      if (name === undefined) {
        io.stderr.write(overview(program, commands));
        return ExitCode.usage;
      }
      io.stdout.write(command ? command.help : overview(program, commands));
      return ExitCode.ok;
    }
    const command = find(commands, name, program);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(command.help);
      return ExitCode.ok;
    }
    return await command.run(rest, io);
  } catch (error) {
    // One line (a JSON one with `--log-format json`), without any password.
    return reportFatal(io, { program, args: rest, error });
  }
}

function find(commands: readonly Command[], name: string, program: string): Command {
  const command = commands.find((c) => c.name === name);
  if (!command) {
    if (name.startsWith('-')) throw new CliError(`${program}: expected a command before ${name} (see \`${program} --help\`)`);
    throw new CliError(`${program}: unknown command ${JSON.stringify(name)} (see \`${program} --help\`)`);
  }
  return command;
}

/** The version of this package, from its package.json (one level above both `src/` and `dist/`). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function overview(program: string, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    `Usage: ${program} <command> [options]`,
    '',
    ...wrap(`Roster: leader election and membership over a key-value store: ${STORE_KINDS}.`, 96),
    '',
    'Commands:',
    ...commands.map((c) => helpItem(c.name, c.summary, { column: width + 4 })),
    '',
    `Run \`${program} <command> --help\` for a command's options, \`${program} --version\` for the version.`,
    '',
  ].join('\n');
}

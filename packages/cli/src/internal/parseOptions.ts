import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from '../CliError.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What {@link parseOptions} returns for the option specs `O`. */
export type ParsedOptions<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>;

/**
 * `node:util` `parseArgs` in strict mode, with its errors turned into one short {@link CliError}
 * line that names the command and points at its `--help`. Commands declare their flags in a
 * `FlagTable` (internal/flags.ts), which calls this.
 */
export function parseOptions<O extends Options>(command: string, args: readonly string[], options: O): ParsedOptions<O> {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new CliError(`${command}: ${describeParseError(error)} (see \`${command} --help\`)`, { cause: error });
  }
}

function describeParseError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option ?? message}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return option ? `option ${option} needs a value` : message;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const positional = /'([^']*)'/.exec(message)?.[1];
      return `unexpected argument ${positional === undefined ? '' : JSON.stringify(positional)}`.trim();
    }
    default:
      return message;
  }
}

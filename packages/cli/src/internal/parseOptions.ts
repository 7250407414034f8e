import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from '../CliError.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** What {@link parseOptions} returns for the option specs `O`. */
export type ParsedOptions<O extends Options> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>;

/**
 * `node:util` `parseArgs` in strict mode, with its errors turned into one short {@link CliError}
 * line that names the command and points at its `--help`.
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

/** Options of {@link integerOption}. */
export interface IntegerConstraints {
  /** Smallest value accepted. @defaultValue 1 */
  readonly min?: number;
  /** Largest value accepted. @defaultValue Number.MAX_SAFE_INTEGER */
  readonly max?: number;
  /** What the number counts, for the message: `"milliseconds"`, `"seconds"`. */
  readonly unit?: string;
}

/**
 * The integer in `raw`, or `undefined` when the option was not given.
 *
 * @throws {@link CliError} naming the flag and the bad value.
 */
export function integerOption(command: string, flag: string, raw: string | undefined, constraints: IntegerConstraints = {}): number | undefined {
  if (raw === undefined) return undefined;
  const { min = 1, max = Number.MAX_SAFE_INTEGER, unit } = constraints;
  const value = /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`;
    throw new CliError(`${command}: ${flag} must be ${range}${unit ? ` (${unit})` : ''}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * A non-negative decimal number (seconds, e.g. `--kill-every 2.5`), or `undefined` when not given.
 *
 * @throws {@link CliError} naming the flag and the bad value.
 */
export function decimalOption(command: string, flag: string, raw: string | undefined, unit: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value)) throw new CliError(`${command}: ${flag} must be a number ≥ 0 (${unit}), got ${JSON.stringify(raw)}`);
  return value;
}

/** The value of a required option. @throws {@link CliError} when it is missing or empty. */
export function required(command: string, flag: string, raw: string | undefined, example: string): string {
  if (raw === undefined || raw.trim() === '') throw new CliError(`${command}: missing ${flag} (e.g. ${flag} ${example})`);
  return raw;
}

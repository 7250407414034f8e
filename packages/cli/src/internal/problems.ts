import { CliError } from '../CliError.js';

/**
 * The one shape of every error line: `<command>: <what>`, then `: <detail>` (a library's message,
 * verbatim), then ` (<where>)` when the bad value came from a place worth naming
 * (`from ROSTER_STORE_URL`, `from --store-file "/run/secrets/store"`).
 *
 * @example
 * ```ts
 * problem('roster node', 'invalid store URL', { detail: 'Expected …, got "foo://x"', where: 'from ROSTER_STORE_URL' });
 * // CliError: roster node: invalid store URL: Expected …, got "foo://x" (from ROSTER_STORE_URL)
 * ```
 */
export function problem(command: string, what: string, options: { where?: string; detail?: string; cause?: unknown; exitCode?: number } = {}): CliError {
  const where = options.where === undefined ? '' : ` (${options.where})`;
  const detail = options.detail === undefined ? '' : `: ${options.detail}`;
  return new CliError(`${command}: ${what}${detail}${where}`, {
    ...(options.cause !== undefined && { cause: options.cause }),
    ...(options.exitCode !== undefined && { exitCode: options.exitCode }),
  });
}

/**
 * A library error's message without its leading tag (`config: `, `kv: store unavailable: `), which
 * the CLI's own words replace; the rest is shown as the library wrote it, never rewritten.
 */
export function untagged(error: unknown, tag: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.startsWith(tag) ? message.slice(tag.length) : message;
}

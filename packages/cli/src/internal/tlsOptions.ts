import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { CliError } from '../CliError.js';

/** The `parseArgs` specs of the TLS flags every store command takes. */
export const TLS_FLAGS = {
  'tls-ca': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-server-name': { type: 'string' },
} as const;

/** The values of {@link TLS_FLAGS} as parsed. */
export interface TlsFlagValues {
  readonly 'tls-ca'?: string | undefined;
  readonly 'tls-cert'?: string | undefined;
  readonly 'tls-key'?: string | undefined;
  readonly 'tls-server-name'?: string | undefined;
}

/** Each flag and the environment variable used when the flag is absent. */
const SOURCES = [
  ['tls-ca', 'ROSTER_TLS_CA'],
  ['tls-cert', 'ROSTER_TLS_CERT'],
  ['tls-key', 'ROSTER_TLS_KEY'],
  ['tls-server-name', 'ROSTER_TLS_SERVER_NAME'],
] as const;

/**
 * The help text of the TLS flags, shared by the commands' `--help`; `storeFlag` is the command's
 * own flag for the store URL (`--store`, or `-r` for cluster-test).
 */
export function tlsHelp(storeFlag: string): string {
  return `TLS (for rediss:// stores; each flag has an environment equivalent):
  --tls-ca FILE         trust the CA certificates in FILE (PEM) instead of the
                        system's                                     [ROSTER_TLS_CA]
  --tls-cert FILE       client certificate (PEM) for mutual TLS      [ROSTER_TLS_CERT]
  --tls-key FILE        its private key (PEM)                        [ROSTER_TLS_KEY]
  --tls-server-name N   the name the server certificate must carry
                        [default: the host of ${storeFlag}]${' '.repeat(Math.max(1, 15 - storeFlag.length))}[ROSTER_TLS_SERVER_NAME]`;
}

/**
 * The Node.js TLS options for the store from the TLS flags (or their environment equivalents),
 * with the files read; `undefined` when none is given (a `rediss://` URL then uses the system's
 * CAs).
 *
 * @throws {@link CliError} when a file cannot be read, or only one of `--tls-cert` and `--tls-key`
 *   is given. The message names the flag and the path, never the file's content.
 */
export function tlsOptions(command: string, values: TlsFlagValues, env: Readonly<Record<string, string | undefined>>): ConnectionOptions | undefined {
  const given: Partial<Record<(typeof SOURCES)[number][0], { value: string; name: string }>> = {};
  for (const [flag, variable] of SOURCES) {
    const fromFlag = values[flag];
    const fromEnv = env[variable];
    if (fromFlag !== undefined && fromFlag !== '') given[flag] = { value: fromFlag, name: `--${flag}` };
    else if (fromEnv !== undefined && fromEnv !== '') given[flag] = { value: fromEnv, name: variable };
  }
  if (Object.keys(given).length === 0) return undefined;
  if ((given['tls-cert'] === undefined) !== (given['tls-key'] === undefined)) {
    throw new CliError(`${command}: --tls-cert and --tls-key go together (a client certificate needs its key)`);
  }
  const read = (entry: { value: string; name: string } | undefined): string | undefined => {
    if (entry === undefined) return undefined;
    try {
      return readFileSync(entry.value, 'utf8');
    } catch (error) {
      const reason = (error as { code?: string }).code ?? 'unreadable';
      throw new CliError(`${command}: cannot read ${entry.name} ${JSON.stringify(entry.value)} (${reason})`, { cause: error });
    }
  };
  const ca = read(given['tls-ca']);
  const cert = read(given['tls-cert']);
  const key = read(given['tls-key']);
  const servername = given['tls-server-name']?.value;
  return {
    ...(ca !== undefined && { ca }),
    ...(cert !== undefined && { cert }),
    ...(key !== undefined && { key }),
    ...(servername !== undefined && { servername }),
  };
}

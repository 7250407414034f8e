import type { ConnectionOptions } from 'node:tls';
import { ConfigError, RosterError } from '@roster/kv-adapter';
import { CliError } from '../CliError.js';

/** What both `roster primary run` and `roster primary get` are given. */
export interface PrimaryStoreOptions {
  /** The store URL (see `checkStoreUrl`). */
  readonly store: string;
  /** The store's passwords, hidden in every log line. */
  readonly storeSecrets?: readonly string[];
  /** Where the store URL came from, for the start line: `--store`, `--store-file`, `ROSTER_STORE_URL`. */
  readonly storeFrom?: string;
  /** The cluster key (`--key`): the first part of the table's namespace. */
  readonly cluster: string;
  /** The environment (`--env`): the second part of the namespace. */
  readonly env: string;
  /** The role type (`--type`). */
  readonly utype: string;
  /** T, in ms. @defaultValue 5000 */
  readonly timeoutMs?: number;
  /** How long to wait for the store at start. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** TLS options for a `rediss://` store (`--tls-ca`, `--tls-cert`, `--tls-key`). */
  readonly tls?: ConnectionOptions;
}

/** The flag behind each `@roster/primary` / store option, to name it in error messages. */
const FLAG: Readonly<Record<string, string>> = {
  store: '--store',
  url: '--store',
  cluster: '--key',
  env: '--env',
  utype: '--type',
  endpoint: '--endpoint',
  generateId: '--id',
  intervalMs: '--interval',
  timeoutMs: '--timeout',
  connectTimeoutMs: '--connect-timeout',
};

/**
 * A {@link ConfigError} as a one-line {@link CliError} naming the flag
 * (`roster primary run: invalid --timeout: Expected …`); a store without compare-and-set or a
 * clock likewise; anything else unchanged.
 */
export function configProblem(command: string, error: unknown): unknown {
  if (ConfigError.is(error)) {
    const flag = FLAG[error.field] ?? error.field;
    return new CliError(`${command}: invalid ${flag}: ${error.message.replace(/^config: /, '')}`, { cause: error });
  }
  if (RosterError.is(error, 'KV_UNSUPPORTED')) {
    return new CliError(`${command}: the store cannot hold a heartbeat table: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return error;
}

/**
 * The contender's `generateId`: a fresh UUID each time without `id`; with one, `id` first and
 * then `id-2`, `id-3`, … each time the contender starts over after a loss, so that no two of its
 * incarnations share an id (docs/primary.md: "starting over uses a new id").
 */
export function idGenerator(id: string | undefined, fresh: () => string): () => string {
  if (id === undefined) return fresh;
  let incarnation = 0;
  return () => (++incarnation === 1 ? id : `${id}-${incarnation}`);
}

import type { ConnectionOptions } from 'node:tls';
import {
  ConfigError,
  connectStore as openStore,
  MissingDriverError,
  probeAccess,
  StoreAccessError,
  StoreUnavailableError,
  type KV,
  type Logger,
} from '@roster/kv-adapter';
import { CliError } from '../CliError.js';

/** Options of {@link connectStore}. */
export interface ConnectStoreOptions {
  /** The command in messages, e.g. `"roster node"`. */
  readonly command: string;
  /** The store URL, in any form `checkStoreUrl` accepts. */
  readonly url: string;
  /** How long to wait for the store. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one store command may take (the backend's `commandTimeoutMs`). Give the node's operation
   * timeout, so that a command to a hung shard fails in the store client, which then knows that
   * shard is down and fails its keys fast, before the protocol's own deadline. @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /** Where the store client logs. */
  readonly logger: Logger;
  /** Gives up when it aborts (a signal during the start). */
  readonly signal?: AbortSignal;
  /** TLS options (CA, client certificate and key, server name) for a `rediss://` store or a PostgreSQL `sslmode`. */
  readonly tls?: ConnectionOptions;
  /**
   * A key of the command's namespace that nobody else uses: when given, every operation Roster
   * makes is tried on it once ({@link probeAccess}), so that a missing ACL permission fails now.
   */
  readonly probeKey?: string;
}

/**
 * Opens the store at `url` as `roster` commands do: kv-adapter's `connectStore` (every store URL
 * form: Redis, Redis Cluster, PostgreSQL, …), waiting up to `connectTimeoutMs`. Resolves to
 * `undefined` when `signal` aborted meanwhile.
 *
 * @throws {@link CliError} (exit code 2) when the store cannot be reached, refuses access (TLS
 *   verification, wrong credentials, a missing ACL permission: `command: the store refused access: …`),
 *   for an invalid URL (`command: invalid --store: …`), or when the store's driver package is not
 *   installed (`command: the store needs the package pg: …`).
 */
export async function connectStore(options: ConnectStoreOptions): Promise<KV | undefined> {
  const { command, url, connectTimeoutMs = 5000, commandTimeoutMs, logger, signal, tls, probeKey } = options;
  let kv: KV | undefined;
  try {
    kv = await openStore(url, {
      connectTimeoutMs,
      logger,
      ...(commandTimeoutMs !== undefined && { commandTimeoutMs }),
      ...(tls && { tls }),
      ...(signal && { signal }),
    });
    if (probeKey !== undefined) await probeAccess(kv, probeKey, { ...(signal && { signal }) });
    return kv;
  } catch (error) {
    await kv?.close();
    if (signal?.aborted) return undefined;
    if (StoreAccessError.is(error)) {
      throw new CliError(`${command}: the store refused access: ${error.message.replace(/^kv: store refused access: /, '')}`, { cause: error });
    }
    if (StoreUnavailableError.is(error)) {
      throw new CliError(`${command}: cannot reach the store: ${error.message.replace(/^kv: store unavailable: /, '')}`, { cause: error });
    }
    if (MissingDriverError.is(error)) {
      throw new CliError(`${command}: the store needs the package ${error.packageName}: ${error.message.replace(/^kv: /, '')}`, { cause: error });
    }
    if (ConfigError.is(error)) {
      const flag = error.field === 'store' || error.field === 'url' ? '--store' : error.field === 'connectTimeoutMs' ? '--connect-timeout' : error.field;
      throw new CliError(`${command}: invalid ${flag}: ${error.message.replace(/^config: /, '')}`, { cause: error });
    }
    throw error;
  }
}

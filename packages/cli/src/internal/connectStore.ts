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
import { problem, untagged } from './problems.js';

/** Options of {@link connectStore}. */
export interface ConnectStoreOptions {
  /** The command in messages, e.g. `"roster node"`. */
  readonly command: string;
  /** The store URL, in any form `checkStoreUrl` accepts. */
  readonly url: string;
  /** Where the URL came from, for messages: `--store`, `--store-file "/run/secrets/store"`, `ROSTER_STORE_URL`. */
  readonly where?: string;
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
  /** TLS options (CA, client certificate and key, server name), from the TLS flags. */
  readonly tls?: ConnectionOptions;
  /**
   * A key of the command's namespace that nobody else uses: when given, every operation Roster
   * makes is tried on it once ({@link probeAccess}), so that a missing ACL permission fails now.
   */
  readonly probeKey?: string;
  /** Turns a `ConfigError` of the store's options into the command's message (see `configProblem`). */
  readonly configProblem?: (error: unknown) => unknown;
}

/**
 * Opens the store at `url` as `roster` commands do: kv-adapter's `connectStore` (every store URL
 * form: Redis, Redis Cluster, Sentinel, PostgreSQL, etcd), waiting up to `connectTimeoutMs`.
 * Resolves to `undefined` when `signal` aborted meanwhile. The library's message is shown as it
 * wrote it (it redacts the URL), after the command's words and before where the URL came from.
 *
 * @throws {@link CliError} (exit code 2) when the store cannot be reached
 *   (`command: cannot reach the store: … (store URL from ROSTER_STORE_URL)`), refuses access (TLS
 *   verification, wrong credentials, a missing ACL permission: `command: the store refused
 *   access: …`), when the store's driver package is not installed (`command: the store needs the
 *   package pg: …`), or for an invalid option.
 */
export async function connectStore(options: ConnectStoreOptions): Promise<KV | undefined> {
  const { command, url, connectTimeoutMs = 5000, commandTimeoutMs, logger, signal, tls, probeKey } = options;
  const where = options.where === undefined ? undefined : `store URL from ${options.where}`;
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
    const fail = (what: string, tag: string): never => {
      throw problem(command, what, { detail: untagged(error, tag), ...(where !== undefined && { where }), cause: error });
    };
    if (StoreAccessError.is(error)) fail('the store refused access', 'kv: store refused access: ');
    if (StoreUnavailableError.is(error)) fail('cannot reach the store', 'kv: store unavailable: ');
    if (MissingDriverError.is(error)) fail(`the store needs the package ${error.packageName}`, 'kv: ');
    if (ConfigError.is(error)) {
      const explained = options.configProblem?.(error);
      if (explained !== undefined && explained !== error) throw explained;
      fail(error.field === 'store' || error.field === 'url' ? 'invalid store URL' : 'invalid configuration', 'config: ');
    }
    throw error;
  }
}

import { ConfigError, RedisKV, StoreUnavailableError, type Logger } from '@roster/kv-adapter';
import { CliError } from '../CliError.js';

/** Options of {@link connectStore}. */
export interface ConnectStoreOptions {
  /** The command in messages, e.g. `"roster node"`. */
  readonly command: string;
  /** The store URL, in any form `parseStoreUrl` accepts. */
  readonly url: string;
  /** How long to wait for the store. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /**
   * How long one store command may take (RedisKV `commandTimeoutMs`). Give the node's operation
   * timeout, so that a command to a hung shard fails in the store client, which then knows that
   * shard is down and fails its keys fast, before the protocol's own deadline. @defaultValue 1000
   */
  readonly commandTimeoutMs?: number;
  /** Where the store client logs. */
  readonly logger: Logger;
  /** Gives up when it aborts (a signal during the start). */
  readonly signal?: AbortSignal;
}

/**
 * Opens the store at `url` as `roster` commands do: `RedisKV.connect`, waiting up to
 * `connectTimeoutMs`. Resolves to `undefined` when `signal` aborted meanwhile.
 *
 * @throws {@link CliError} (exit code 2) when the store cannot be reached, or for an invalid URL
 *   (`command: invalid --store: …`).
 */
export async function connectStore(options: ConnectStoreOptions): Promise<RedisKV | undefined> {
  const { command, url, connectTimeoutMs = 5000, commandTimeoutMs, logger, signal } = options;
  try {
    return await RedisKV.connect({ url, connectTimeoutMs, logger, ...(commandTimeoutMs !== undefined && { commandTimeoutMs }) }, { signal });
  } catch (error) {
    if (signal?.aborted) return undefined;
    if (StoreUnavailableError.is(error)) {
      throw new CliError(`${command}: cannot reach the store: ${error.message.replace(/^kv: store unavailable: /, '')}`, { cause: error });
    }
    if (ConfigError.is(error)) {
      const flag = error.field === 'store' || error.field === 'url' ? '--store' : error.field === 'connectTimeoutMs' ? '--connect-timeout' : error.field;
      throw new CliError(`${command}: invalid ${flag}: ${error.message.replace(/^config: /, '')}`, { cause: error });
    }
    throw error;
  }
}

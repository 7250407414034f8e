import { KeyUnavailableError, KVClosedError, KVRejectedError, RosterError, StoreUnavailableError } from '../errors.js';

/** What {@link mapRedisError} needs to know about the client when an operation failed. */
export interface ErrorContext {
  /** The backend name for {@link KVClosedError}. */
  readonly backend: string;
  /** The operation, for messages: `get`, `append`, … */
  readonly operation: string;
  /** The key the operation was for; `undefined` for keyless operations (`TIME`). */
  readonly key: string | undefined;
  /** True when the KV was closed (errors of operations cut short by `close()`). */
  readonly closed: boolean;
  /**
   * True in cluster mode while the cluster client as a whole is ready: a failure then concerns
   * the shard of one key, not the store.
   */
  readonly shardScoped: boolean;
}

/**
 * Error replies that mean "cannot serve this now" rather than "refused": the cluster (or this
 * key's slot) is down, a failover or resharding is under way, the dataset is loading, a script is
 * hogging the server, a replica took the write (`READONLY`: under Sentinel, a demoted master), the
 * master has too few replicas in sync to accept a write (`NOREPLICAS`: `min-replicas-to-write`).
 */
const UNAVAILABLE_REPLIES = new Set(['CLUSTERDOWN', 'TRYAGAIN', 'LOADING', 'MASTERDOWN', 'BUSY', 'READONLY', 'NOREPLICAS', 'MOVED', 'ASK']);

/**
 * Maps an ioredis failure to Roster's typed errors:
 * - error replies about availability (`CLUSTERDOWN`, `LOADING`, …), lost or refused connections,
 *   a redirection (`MOVED`, `ASK`) still unfollowed after RedisKV's own retries,
 *   command timeouts and "too many redirections" → {@link KeyUnavailableError} when the failure is
 *   scoped to one key's shard (cluster mode, cluster client ready), else {@link StoreUnavailableError};
 * - `NOPERM` (an ACL permission lost at run time) → {@link StoreUnavailableError}: the store cannot
 *   serve this client until an operator restores the permission;
 * - every other error reply (`WRONGTYPE`, `OOM`, script errors) → {@link KVRejectedError};
 * - anything after `close()` → {@link KVClosedError};
 * - Roster errors and programming errors (`TypeError`, `RangeError`) pass through unchanged.
 */
export function mapRedisError(error: unknown, context: ErrorContext): unknown {
  if (RosterError.is(error)) return error;
  if (context.closed) return new KVClosedError(context.backend);
  if (error instanceof TypeError || error instanceof RangeError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isReplyError(error)) {
    const code = message.split(' ', 1)[0] ?? '';
    if (code === 'NOPERM') return new StoreUnavailableError(`${context.operation}: ${message}`, { cause: error });
    if (!UNAVAILABLE_REPLIES.has(code) && !fromScript(message)) return new KVRejectedError(`${context.operation}: ${message}`, { cause: error });
  }
  const reason = `${context.operation}: ${message}`;
  if (context.shardScoped && context.key !== undefined) return new KeyUnavailableError(context.key, { cause: error, reason });
  return new StoreUnavailableError(reason, { cause: error });
}

/**
 * True for a cluster redirection reply (`MOVED <slot> <addr>`, `ASK <slot> <addr>`): routing, not
 * unavailability. The server did not run the command, so it can be sent again as it is. ioredis
 * follows redirections itself, except inside a pipeline whose replies failed in different ways
 * (an autopipelined caller-supplied client); {@link RedisKV} then refreshes the slot table and
 * sends the command again.
 */
export function isRedirection(error: unknown): boolean {
  return isReplyError(error) && /^(MOVED|ASK) /.test(error.message);
}

/** True for an error reply from the server (ioredis' `ReplyError`), as opposed to a client-side failure. */
export function isReplyError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ReplyError';
}

/**
 * True for an availability reply raised inside a Lua script (`ERR … READONLY You can't write
 * against a read only replica`, `NOREPLICAS` as a script error), which older servers wrap.
 */
function fromScript(message: string): boolean {
  return /\b(READONLY|NOREPLICAS|MASTERDOWN)\b/.test(message) && /script/i.test(message);
}

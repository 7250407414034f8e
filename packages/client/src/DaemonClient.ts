import type { DaemonLeader, DaemonRole, DaemonUpdate, WatchFunction } from './DaemonUpdate.js';

/**
 * A thin client of a local `roster node` daemon: an independent listener on the
 * daemon's `/events` stream that turns it into typed updates for watch functions and iterators.
 * Its only state is what the stream says: the daemon's role, the leader it follows and the
 * member list. Made by {@link connectDaemon}.
 */
export interface DaemonClient extends AsyncDisposable {
  /** The `/events` URL it reads. */
  readonly url: string;
  /** True while the link to the daemon is up. */
  readonly connected: boolean;
  /**
   * The daemon's role, once known; `undefined` again while the link is down (the daemon may have
   * stopped leading, or died, unseen), until the snapshot of the next connection. `leader` means
   * the daemon's node may act as leader now.
   */
  readonly role: DaemonRole | undefined;
  /** The leader the daemon follows (or is); `undefined` while none is known. */
  readonly leader: DaemonLeader | undefined;
  /** Every member id, sorted (JavaScript string order); the last known list while disconnected. */
  readonly members: readonly string[];
  /** True once {@link close} was called (or the signal aborted, or the link ended without `reconnect`). */
  readonly closed: boolean;

  /**
   * Installs a watch function, called with every update from now on, synchronously and in order.
   * A watch function that throws is reported to the logger and stays installed.
   *
   * @returns the function that uninstalls it.
   */
  watch(fn: WatchFunction): () => void;

  /**
   * The updates from now on, as an async iterator. It ends (`done: true`, the `for await` loop
   * exits normally) when the client closes, after the updates it had buffered, or as soon as
   * `signal` aborts, dropping those (it does not reject, as `node.updates()` of
   * `@roster/election` does not); it detaches when the loop is left.
   *
   * @example
   * ```ts
   * for await (const update of client.updates({ signal: AbortSignal.timeout(60_000) })) {
   *   if (update.type === 'leader') console.log('leader is', update.leader?.id);
   * }
   * // here after a minute, or once the client closed
   * ```
   */
  updates(options?: { readonly signal?: AbortSignal }): AsyncIterableIterator<DaemonUpdate>;

  /**
   * Closes the link: no more reconnections, a `disconnected` update if the link was up, then
   * every iterator ends. Resolves once the connection is closed. Idempotent.
   */
  close(): Promise<void>;

  /** Calls {@link close}. */
  [Symbol.asyncDispose](): Promise<void>;
}

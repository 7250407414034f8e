import type { Cluster, Redis } from 'ioredis';
import { abortReason, type Clock } from '../clock/Clock.js';
import { StoreAccessError, StoreUnavailableError } from '../errors.js';
import { accessDenied } from '../backend/accessDenied.js';

/** Options of {@link waitUntilReady}. */
export interface WaitUntilReadyOptions {
  /** Give up after this long. */
  readonly timeoutMs: number;
  readonly clock: Clock;
  /** Names the store in the error, e.g. `"redis://127.0.0.1:6379"`. */
  readonly target: string;
  /**
   * Whether the client's `end` fails the wait at once. False when someone starts an ended client
   * again (RedisKV does in Sentinel mode): the wait then lasts until `ready` or `timeoutMs`.
   * @defaultValue true
   */
  readonly endIsFinal?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Resolves when `client` is ready for commands, starting the connection if it is lazy. Rejects
 * with {@link StoreAccessError} at the first error no retry can fix (a TLS certificate that fails
 * verification, a refused client certificate, `WRONGPASS`, `NOPERM`: see {@link accessDenied}),
 * of the client or, on a Redis Cluster, of any node (`node error`),
 * with {@link StoreUnavailableError} (cause: the last connection error) when it is not ready
 * within `timeoutMs` or gives up reconnecting, or with the signal's reason on abort. The client
 * keeps retrying in the background; the caller decides whether to disconnect it.
 */
export function waitUntilReady(client: Redis | Cluster, options: WaitUntilReadyOptions): Promise<void> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (client.status === 'ready') return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    let lastError: unknown;
    const onError = (error: unknown): void => {
      lastError = error;
      const denied = accessDenied(error);
      if (denied !== undefined) finish(new StoreAccessError(`${options.target}: ${denied}`, { cause: error }));
    };
    const finish = (error?: unknown): void => {
      timer.cancel();
      client.off('ready', onReady);
      client.off('error', onError);
      client.off('node error', onError);
      client.off('end', onEnd);
      signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onReady = (): void => finish();
    const onEnd = (): void =>
      finish(new StoreUnavailableError(`${options.target}: the client gave up connecting`, { cause: lastError }));
    const onAbort = (): void => finish(abortReason(signal!));
    const timer = options.clock.setTimer(() => {
      const detail =
        lastError instanceof Error
          ? `: ${lastError.message}`
          : options.target.startsWith('rediss://')
            ? ': no answer to the TLS handshake (is it a TLS port?)'
            : '';
      finish(new StoreUnavailableError(`${options.target}: not ready within ${options.timeoutMs} ms${detail}`, { cause: lastError }));
    }, options.timeoutMs);
    client.on('ready', onReady);
    client.on('error', onError);
    // A Redis Cluster reports its nodes' failures apart (see createClient): a seed refusing access is final too.
    client.on('node error', onError);
    if (options.endIsFinal !== false) client.once('end', onEnd);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (client.status === 'wait') client.connect().catch(onError);
  });
}

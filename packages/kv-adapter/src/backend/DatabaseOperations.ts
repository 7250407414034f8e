import { abortReason, sleep, type Clock, type Timer } from '../clock/Clock.js';
import { KVClosedError, StoreAccessError, StoreUnavailableError } from '../errors.js';
import type { KVOperationOptions } from '../KV.js';
import { raceSignal, withDeadline } from '../util/deadline.js';
import { checkKey } from '../validate.js';
import type { ConnectBackOff } from './ConnectBackOff.js';
import type { DatabaseSettings } from './databaseSettings.js';
import { LifoGate } from './LifoGate.js';

/** How often expired rows are deleted. */
const SWEEP_INTERVAL_MS = 60_000;
/** How long `connect` waits between two attempts. */
const RETRY_MS = 100;

/** What a database backend's failed operation is, for its error mapper. */
export interface DatabaseErrorContext {
  readonly backend: string;
  readonly operation: string;
  readonly closed: boolean;
}

/** Options of {@link DatabaseOperations}: the backend's settings, and what differs between backends. */
export interface DatabaseOperationsOptions extends DatabaseSettings {
  /** The backend's name (`MySQLKV`), for `KVClosedError` and the error mapper. */
  readonly backend: string;
  /** The store's short name (`mysql`), the prefix of log messages and deadlines. */
  readonly store: string;
  /** Told of every answer in time and every failure as unavailable. */
  readonly backOff: ConnectBackOff;
  /** The driver's pool size: how many operations run at once (the others wait, newest first). */
  readonly poolSize: number;
  /** Whether the KV was closed. */
  readonly closed: () => boolean;
  /** Whether `error` is the server's "no such table". */
  readonly tableMissing: (error: unknown) => boolean;
  /** Creates the table again. */
  readonly ensureTable: () => Promise<void>;
  /** The driver's error as a typed KV error. */
  readonly mapError: (error: unknown, context: DatabaseErrorContext) => unknown;
}

/**
 * What a database backend (PostgresKV, MySQLKV) does the same way as the other: wait for the
 * database at connect (again every 100 ms until `connectTimeoutMs`); run each operation (refused
 * once closed or aborted, the key checked, bounded by `commandTimeoutMs`, run once more after
 * re-creating the table when the table is gone, the driver's error mapped; the back-off told of
 * the outcome, and a loss of the store and its return each logged once; at most `poolSize` at once,
 * the others waiting newest first, so that the driver's first-come queue stays empty: see
 * {@link LifoGate}); sweep expired rows every minute.
 */
export class DatabaseOperations {
  readonly #o: DatabaseOperationsOptions;
  /** Whether the last operation reached the store: a loss and a recovery are logged once each. */
  #reachable = true;
  #sweepTimer: Timer | undefined;
  readonly #gate: LifoGate;

  constructor(options: DatabaseOperationsOptions) {
    this.#o = options;
    this.#gate = new LifoGate(options.poolSize);
  }

  /**
   * Runs `attempt` (the first statements) until it succeeds, again every 100 ms while the database
   * is unavailable, until `connectTimeoutMs`; `notReady(error, mapped)` is the reason given then.
   *
   * @throws the signal's reason once `signal` aborts; a {@link StoreAccessError} naming the target
   *   (or another mapped error) at once when the database refuses for good; a
   *   {@link StoreUnavailableError} when it is not ready in time.
   */
  async waitUntilReady(attempt: () => Promise<void>, signal: AbortSignal | undefined, notReady: (error: unknown, mapped: StoreUnavailableError) => string): Promise<void> {
    const { clock, connectTimeoutMs, target, backend } = this.#o;
    const started = clock.now();
    for (;;) {
      if (signal?.aborted) throw abortReason(signal);
      try {
        await raceSignal(attempt(), signal);
        return;
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        const mapped = this.#o.mapError(error, { backend, operation: 'connect', closed: false });
        if (!StoreUnavailableError.is(mapped)) throw connectRefusal(target, mapped, error);
        if (clock.now() - started + RETRY_MS >= connectTimeoutMs) {
          throw new StoreUnavailableError(`${target}: not ready within ${connectTimeoutMs} ms: ${notReady(error, mapped)}`, { cause: error });
        }
        await sleep(clock, RETRY_MS, signal);
      }
    }
  }

  /** Runs `sweep` (a delete of the expired rows) every minute until {@link stopSweeps} or the close; a failure is logged. */
  scheduleSweep(sweep: () => Promise<unknown>): void {
    if (this.#o.closed()) return;
    const { clock, logger, target, store } = this.#o;
    this.#sweepTimer = clock.setTimer(() => {
      sweep()
        .catch((error: unknown) => logger.debug({ store: target, error: String(error) }, `${store}: sweep of expired keys failed`))
        .finally(() => this.scheduleSweep(sweep));
    }, SWEEP_INTERVAL_MS);
  }

  /** Cancels the next sweep. */
  stopSweeps(): void {
    this.#sweepTimer?.cancel();
  }

  /** Runs `run` (given the operation's deadline signal) as `operation` on `key`, if any. */
  run<T>(operation: string, key: string | undefined, options: KVOperationOptions | undefined, run: (deadline: AbortSignal) => Promise<T>): Promise<T> {
    const o = this.#o;
    if (o.closed()) return Promise.reject(new KVClosedError(o.backend));
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const work = async (deadline: AbortSignal): Promise<T> => {
      if (key !== undefined) checkKey(key, o.limits);
      // Rejects only when the deadline passed first, or the caller gave up: the operation times
      // out, never sent, and its timeout says so (`queued`).
      const wait = signal === undefined ? deadline : AbortSignal.any([deadline, signal]);
      const release = await this.#gate.acquire(wait, options?.urgent === true);
      try {
        try {
          return await run(deadline);
        } catch (error) {
          // The table is gone (dropped, or the database restored without it): create it, try once more.
          if (!o.tableMissing(error) || o.closed()) throw error;
          o.logger.warn({ store: o.target, table: o.table }, `${o.store}: the table is missing; creating it again`);
          await o.ensureTable();
          return await run(deadline);
        }
      } catch (error) {
        throw o.mapError(error, { backend: o.backend, operation, closed: o.closed() });
      } finally {
        release();
      }
    };
    const bounded = withDeadline(o.clock, o.commandTimeoutMs, `${o.store} ${operation}`, work).then(
      (result) => {
        this.#noteReachable(true);
        return result;
      },
      (error: unknown) => {
        // A timeout of an operation that waited for a connection is this client's queue: it says
        // nothing of the server, and opens no gap in the connections (`ConnectBackOff`).
        if (StoreUnavailableError.is(error) && !error.queued) this.#noteReachable(false, error);
        throw error;
      },
    );
    return raceSignal(bounded, signal);
  }

  #noteReachable(reachable: boolean, error?: StoreUnavailableError): void {
    const { backOff, logger, target, store } = this.#o;
    if (reachable) backOff.succeeded();
    else backOff.failed();
    if (reachable === this.#reachable || this.#o.closed()) return;
    this.#reachable = reachable;
    if (reachable) logger.info({ store: target }, `${store}: store reachable again`);
    else logger.warn({ store: target, error: error?.message }, `${store}: store unavailable`);
  }
}

/** Ends a pool (`end`), waiting for it at most `ms` on `clock`; a pool already ended is no error. */
export async function endPoolWithin(clock: Clock, ms: number, end: () => Promise<void>): Promise<void> {
  let timer: Timer | undefined;
  try {
    await Promise.race([
      end(),
      new Promise<void>((resolve) => {
        timer = clock.setTimer(resolve, ms);
      }),
    ]);
  } catch {
    // Already ended.
  } finally {
    timer?.cancel();
  }
}

/**
 * The error `connect` rejects with when the first statements failed for good (`mapped`: not
 * unavailable): a {@link StoreAccessError} naming `target` (the redacted URL), else `mapped` itself.
 */
function connectRefusal(target: string, mapped: unknown, cause: unknown): unknown {
  if (!StoreAccessError.is(mapped)) return mapped;
  const detail = mapped instanceof Error ? mapped.message.replace(/^kv: store refused access: /, '') : String(mapped);
  return new StoreAccessError(`${target}: ${detail}`, { cause });
}

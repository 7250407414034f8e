import type { Clock, Logger } from '@roster/kv-adapter';
import { FaultLog } from './FaultLog.js';

/**
 * The leadership a run of leader work belongs to, as `whileLeader()` hands it to the work: the
 * signal that aborts when this node may no longer act as leader, and the fencing token (and era)
 * of that leadership, the same as in the `leader` update that told of it. Frozen.
 */
export interface Leadership {
  /**
   * Aborts (with a `LeadershipLostError`) the moment this node may no longer act as leader under
   * this leadership: dethroned, its lease lapsed, `resign()`, `stop()`, `destroy()`; or (with an
   * `AbortError`) when the work is unregistered.
   */
  readonly signal: AbortSignal;
  /**
   * The leadership's fencing token (`fencingToken()`): the `token` of the `LeaderInfo` users were
   * told of when it started. It never changes within a leadership (a lapsed lease re-validated
   * keeps it) and is greater for every later leadership: stamp the work's writes with it, so that
   * a store that keeps the highest token seen refuses a deposed leader's late writes.
   */
  readonly token: bigint;
  /** The leadership's election era (the `era` of that `LeaderInfo`). */
  readonly era: number;
}

/** The work a node runs while it leads (see `RosterNode.whileLeader`). */
export type LeaderWorkFunction = (leadership: Leadership) => unknown;

/** One function given to `whileLeader()`, and its run in progress, if any. */
interface Registration {
  readonly fn: LeaderWorkFunction;
  readonly log: FaultLog;
  /** Aborts the run in progress (unregistering does). */
  controller: AbortController | undefined;
  /** Settles when the run in progress (aborted or not) has settled. */
  running: Promise<void> | undefined;
  registered: boolean;
}

/**
 * The leader's work: the functions given to `whileLeader()`, each run with the {@link Leadership}
 * (its signal, its token) when the node starts leading ({@link lead}), the signal aborted when
 * that leadership's signal aborts, and the runs awaited, bounded, before a goodbye
 * ({@link settle}). Runs of one function never overlap: a leadership that starts while the
 * previous run still winds down starts the next run once it has settled. A run's failure is
 * logged (once per change of state), never left unhandled; a rejection after the signal aborted
 * is the normal end of a run.
 */
export class LeaderWork {
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #node: string;
  readonly #registrations = new Set<Registration>();
  /** Every run not settled yet, of registered functions or of ones unregistered since. */
  readonly #unsettled = new Set<Promise<void>>();
  /** The leadership in progress, if this node leads and its lease holds. */
  #leadership: Leadership | undefined;

  constructor(options: { readonly clock: Clock; readonly logger: Logger; readonly node: string }) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#node = options.node;
  }

  /** Registers `fn`, started at once when the node leads now; returns the function that unregisters it. */
  add(fn: LeaderWorkFunction): () => void {
    const r: Registration = { fn, log: new FaultLog(this.#logger, 'leader work failed', 'leader work ran again without failing'), controller: undefined, running: undefined, registered: true };
    this.#registrations.add(r);
    if (this.#leadership) this.#start(r, this.#leadership);
    return () => {
      r.registered = false;
      this.#registrations.delete(r);
      r.controller?.abort();
    };
  }

  /**
   * The node starts leading (or its lapsed lease holds again): every function runs until
   * `leadership.signal` aborts, told of its token.
   */
  lead(leadership: Leadership): void {
    if (leadership.signal.aborted) return;
    this.#leadership = leadership;
    leadership.signal.addEventListener('abort', () => {
      if (this.#leadership === leadership) this.#leadership = undefined;
    }, { once: true });
    for (const r of this.#registrations) this.#start(r, leadership);
  }

  /**
   * Resolves once every run has settled (their signals aborted with the leadership), or after
   * `timeoutMs` at most (logged): what a goodbye waits for.
   */
  async settle(timeoutMs: number): Promise<void> {
    const runs = [...this.#unsettled];
    if (runs.length === 0) return;
    const started = this.#clock.now();
    let timer: { cancel(): void } | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = this.#clock.setTimer(() => resolve(true), timeoutMs)));
    const late = await Promise.race([Promise.all(runs).then(() => false), timedOut]);
    timer?.cancel();
    if (late) this.#logger.warn({ node: this.#node, timeoutMs }, 'leader work did not settle in time: going on without it');
    else this.#logger.debug({ node: this.#node, ms: this.#clock.now() - started }, 'leader work settled');
  }

  /** Runs `r` under `leadership`, after its previous run has settled. */
  #start(r: Registration, leadership: Leadership): void {
    const previous = r.running;
    const controller = new AbortController();
    r.controller = controller;
    const onLoss = (): void => controller.abort(leadership.signal.reason);
    leadership.signal.addEventListener('abort', onLoss, { once: true });
    // Each run gets the leadership with its own signal (unregistering aborts only this one).
    const context: Leadership = Object.freeze({ signal: controller.signal, token: leadership.token, era: leadership.era });
    // Deferred (a microtask at least): the transition that started the leadership completes first,
    // and a synchronous throw of `fn` becomes a rejection like any other.
    const run = (previous ?? Promise.resolve())
      .then(() => {
        if (controller.signal.aborted || !r.registered) return;
        return r.fn(context);
      })
      .then(
        () => r.log.worked({ node: this.#node }),
        (error: unknown) => {
          if (controller.signal.aborted && isAbortEnd(error, controller.signal)) return r.log.worked({ node: this.#node });
          r.log.failed(error);
        },
      )
      .finally(() => {
        // The signal still aborts with the leadership (a run may have left timers on it).
        this.#unsettled.delete(run);
        if (r.running === run) r.running = undefined;
      });
    this.#unsettled.add(run);
    r.running = run;
  }
}

/** True when `error` is how a run ends once its signal aborted: the signal's reason, or an `AbortError`. */
function isAbortEnd(error: unknown, signal: AbortSignal): boolean {
  return error === signal.reason || (error instanceof Error && error.name === 'AbortError') || (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'LEADERSHIP_LOST');
}

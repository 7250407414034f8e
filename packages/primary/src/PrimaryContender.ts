import { AbortError, realClock, silentLogger, type Clock, type Logger } from '@roster/kv-adapter';
import { LocalDeadline, UpdateStream, deadline, sleep, type Deadline } from '@roster/kv-adapter/internal';
import { checkId, newId } from '@roster/follower';
import type {
  ContenderState,
  PrimaryContenderEvent,
  PrimaryContenderOptions,
  StartedActingEvent,
  StopOptions,
} from './contenderOptions.js';
import { PrimaryLostError, type StopReason } from './errors.js';
import { HeartbeatTable, type Primary } from './HeartbeatTable.js';
import { checkEndpoint, checkUtype } from './names.js';
import { resolveTiming } from './timing.js';

/**
 * One instance contending to be the primary of a role type: the contender's loop, every step of
 * it in this file.
 *
 * 1. Take an id (`generateId`, a random UUID without dashes by default).
 * 2. `seeking`: every I, `getPrimary(utype)`; someone else is primary → keep polling.
 * 3. Nobody (or our own entry) → `updateHeartbeat` (claim) → `claimed`.
 * 4. `claimed`, next poll: `getPrimary` returns us → act as primary (`acting`); someone else →
 *    back to 2; nothing → claim again (4c).
 * 5. `acting`, every I: `updateHeartbeat` (renew only) and `getPrimary`. Anything but us, or no
 *    successful round for T − I since the last one (local clock, measured from the start of the
 *    round whose write succeeded), and the contender stops acting at once: the primary's signal
 *    aborts, `onStoppedActing` is called, then `exit(1)` when `exitOnLoss` is set, else it starts
 *    over at 1 with a new id (the seed's "exit itself and restart", in-process).
 *
 * Guarantee (see docs/primary.md): the store only lets another instance take the entry once store
 * time is more than T past our last write, and our last write happened after the local reading
 * the deadline counts from. So with a local clock that runs slow by at most a rate δ relative to
 * the store's, we stop before anyone else can start when T ≤ I / δ (1 s, 5 s: up to 20 %), and
 * overlap by at most (T − I) / (1 − δ) − T otherwise. This assumes timers fire on time; a process
 * paused longer than the margin (GC, VM freeze) can overlap for the length of the pause, as with
 * any lease without fencing.
 *
 * Local clocks are never compared with the store's clock or with one another: the table compares
 * store timestamps with store time, and the contender times only its own durations.
 *
 * @example
 * ```ts
 * const contender = new PrimaryContender({ store, namespace, utype: 'billing', endpoint: '10.0.0.7:8080' });
 * contender.on('startedActing', ({ signal }) => runBilling(signal));
 * contender.on('stoppedActing', ({ reason }) => console.log('no longer primary:', reason));
 * contender.start();
 * // … on shutdown:
 * await contender.stop(); // stops acting, then releases the entry
 * ```
 */
export class PrimaryContender implements AsyncDisposable {
  /** The role type contended for. */
  readonly utype: string;
  /** The endpoint written in the entry, if any. */
  readonly endpoint: string | undefined;
  /** I, in ms. */
  readonly intervalMs: number;
  /** T, in ms. */
  readonly timeoutMs: number;
  /** The heartbeat table the contender reads and writes. */
  readonly table: HeartbeatTable;

  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #events: UpdateStream<PrimaryContenderEvent>;
  readonly #generateId: () => string;
  readonly #exitOnLoss: boolean;
  readonly #exit: (code: number) => void;
  readonly #releaseOnStop: boolean;
  readonly #signal: AbortSignal | undefined;
  /** Fires T − I (local) after the start of the round of our last confirmed write. */
  readonly #deadline: LocalDeadline;
  readonly #loopController = new AbortController();

  #state: ContenderState = 'idle';
  #id: string;
  /** Bumped on every new id and on stop: results of older rounds are ignored. */
  #generation = 0;
  /** Whether this id wrote the entry (and so may have something to release). */
  #wroteEntry = false;
  /** An earlier id of ours whose entry may still be in the table. */
  #toRelease: string | undefined;
  #acting: { readonly controller: AbortController; readonly since: number } | undefined;
  #round: Deadline | undefined;
  #loop: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #observed: string | undefined;
  #failing = false;
  /** Store time of our latest claim write. */
  #claimedAt = 0;

  /**
   * @throws {@link ConfigError} for invalid timing, `utype`, `endpoint` or generated id.
   * @throws {@link UnsupportedOperationError} when the store lacks `compareAndSet` or `time`.
   */
  constructor(options: PrimaryContenderOptions) {
    const { intervalMs, timeoutMs } = resolveTiming(options);
    checkUtype(options.utype);
    if (options.endpoint !== undefined) checkEndpoint(options.endpoint);
    this.utype = options.utype;
    this.endpoint = options.endpoint;
    this.intervalMs = intervalMs;
    this.timeoutMs = timeoutMs;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#events = new UpdateStream(this.#logger);
    this.table = new HeartbeatTable({
      store: options.store,
      namespace: options.namespace,
      timeoutMs,
      logger: this.#logger,
      onCorruptEntry: (report) => this.#events.emit({ type: 'corruptEntry', ...report }),
    });
    this.#generateId = options.generateId ?? newId;
    this.#exitOnLoss = options.exitOnLoss ?? false;
    this.#exit = options.exit ?? ((code) => process.exit(code));
    this.#releaseOnStop = options.releaseOnStop ?? true;
    this.#signal = options.signal;
    this.#deadline = new LocalDeadline(this.#clock, timeoutMs - intervalMs, () => this.#onDeadline());
    if (options.onStartedActing) this.#events.on('startedActing', options.onStartedActing);
    if (options.onStoppedActing) this.#events.on('stoppedActing', options.onStoppedActing);
    this.#id = this.#newId();
  }

  /** The current id (a new one after each loss). */
  get id(): string {
    return this.#id;
  }

  /** Where the contender is in the loop. */
  get state(): ContenderState {
    return this.#state;
  }

  /** True while this contender acts as the primary. */
  get isActing(): boolean {
    return this.#acting !== undefined;
  }

  /** The signal of the current term as primary (aborts when it ends), or `undefined` when not acting. */
  get signal(): AbortSignal | undefined {
    return this.#acting?.controller.signal;
  }

  /**
   * Listens to the events of one `type`; returns a function that removes the listener. Listeners run synchronously;
   * one that throws is logged and ignored.
   */
  on<T extends PrimaryContenderEvent['type']>(type: T, listener: (event: Extract<PrimaryContenderEvent, { type: T }>) => void): () => void {
    return this.#events.on(type, listener);
  }

  /** Starts the loop in the background. Idempotent; does nothing after `stop()`. */
  start(): void {
    if (this.#state !== 'idle') return;
    if (this.#signal?.aborted) {
      void this.stop();
      return;
    }
    this.#signal?.addEventListener('abort', this.#onSignalAbort, { once: true });
    this.#setState('seeking');
    this.#loop = this.#run().catch((error: unknown) => this.#logger.error({ utype: this.utype, error }, 'primary: the contender loop failed'));
  }

  /**
   * Stops gracefully: stops acting at once (the primary's signal aborts, `onStoppedActing` runs
   * with reason `stopped`), ends the loop, then, unless `release` is false, gives the entry up so
   * a successor need not wait T. The release is bounded by I and by `options.signal`; its failure
   * is logged, not thrown. Idempotent: later calls return the same promise.
   */
  stop(options: StopOptions = {}): Promise<void> {
    this.#stopping ??= this.#shutdown(options.release ?? this.#releaseOnStop, options.signal);
    return this.#stopping;
  }

  /** Calls {@link stop}. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  readonly #onSignalAbort = (): void => {
    void this.stop();
  };

  async #shutdown(release: boolean, signal: AbortSignal | undefined): Promise<void> {
    this.#signal?.removeEventListener('abort', this.#onSignalAbort);
    this.#loopController.abort(new AbortError());
    this.#deadline.cancel();
    this.#stopActing('stopped');
    this.#generation++;
    await this.#loop;
    if (release) {
      for (const id of [this.#toRelease, this.#wroteEntry ? this.#id : undefined]) {
        if (id !== undefined) await this.#release(id, signal);
      }
    }
    if (this.#state !== 'stopped') this.#setState('stopped');
  }

  async #run(): Promise<void> {
    const stopped = this.#loopController.signal;
    while (!stopped.aborted && this.#state !== 'stopped') {
      const start = this.#clock.now();
      await this.#runRound(start);
      try {
        await sleep(this.#clock, Math.max(0, this.intervalMs - (this.#clock.now() - start)), stopped);
      } catch {
        return;
      }
    }
  }

  /** One round of the current state; never rejects. A round is abandoned after T − I. */
  async #runRound(start: number): Promise<void> {
    const generation = this.#generation;
    const state = this.#state;
    const round = deadline(this.#clock, this.timeoutMs - this.intervalMs, this.#loopController.signal);
    this.#round = round;
    try {
      if (state === 'seeking') await this.#seek(start, round.signal, generation);
      else if (state === 'claimed') await this.#confirm(start, round.signal, generation);
      else if (state === 'acting') await this.#renew(start, round.signal, generation);
      if (this.#failing) this.#logger.info({ utype: this.utype, id: this.#id }, 'primary: rounds succeed again');
      this.#failing = false;
    } catch (error) {
      if (generation !== this.#generation || this.#loopController.signal.aborted) return;
      this.#events.emit({ type: 'roundFailed', id: this.#id, utype: this.utype, state, error });
      if (!this.#failing) this.#logger.warn({ utype: this.utype, id: this.#id, state, error }, 'primary: round failed');
      this.#failing = true;
    } finally {
      round.dispose();
      if (this.#round === round) this.#round = undefined;
    }
  }

  /** Steps 2–3: poll; claim when nobody (or our own earlier claim) holds the entry. */
  async #seek(start: number, signal: AbortSignal, generation: number): Promise<void> {
    if (this.#toRelease !== undefined) {
      const previous = this.#toRelease;
      this.#toRelease = undefined;
      await this.#release(previous, signal);
    }
    const primary = await this.table.getPrimary(this.utype, { signal });
    if (this.#stale(generation, 'seeking')) return;
    this.#observe(primary);
    if (primary !== undefined && primary.id !== this.#id) return;
    await this.#claim(start, signal, generation, 'seeking');
  }

  /** Step 4: the poll after a claim confirms it (4a), defers to another (4b) or claims again (4c). */
  async #confirm(start: number, signal: AbortSignal, generation: number): Promise<void> {
    const primary = await this.table.getPrimary(this.utype, { signal });
    if (this.#stale(generation, 'claimed')) return;
    this.#observe(primary);
    if (primary === undefined) {
      await this.#claim(start, signal, generation, 'claimed');
    } else if (primary.id !== this.#id) {
      this.#deadline.cancel();
      this.#setState('seeking');
    } else if (this.#deadline.armed) {
      this.#startActing();
    }
  }

  /** Step 3: write our heartbeat; the deadline counts from the start of this round. */
  async #claim(start: number, signal: AbortSignal, generation: number, from: ContenderState): Promise<void> {
    const id = this.#id;
    const outcome = await this.table.updateHeartbeat(id, this.utype, { endpoint: this.endpoint, signal });
    if (outcome.written && id === this.#id) this.#wroteEntry = true;
    if (this.#stale(generation, from)) return;
    if (!outcome.written) {
      if (outcome.reason === 'held') this.#observe(outcome.holder);
      this.#logger.debug({ utype: this.utype, id: this.#id, reason: outcome.reason }, 'primary: claim not written');
      return;
    }
    this.#claimedAt = outcome.entry.timestamp;
    this.#deadline.arm(start);
    if (from !== 'claimed') this.#setState('claimed');
  }

  /** Step 5: heartbeat (renew only) and check; a round where both succeed moves the deadline. */
  async #renew(start: number, signal: AbortSignal, generation: number): Promise<void> {
    const outcome = await this.table.updateHeartbeat(this.#id, this.utype, { endpoint: this.endpoint, renewOnly: true, signal });
    if (this.#stale(generation, 'acting')) return;
    if (!outcome.written) {
      if (outcome.reason === 'held') {
        this.#observe(outcome.holder);
        this.#lose('superseded');
        return;
      }
      if (outcome.reason === 'not-owner') {
        this.#lose('vanished');
        return;
      }
      // `conflict` or `unreadable`: this heartbeat is discarded; the check below decides.
    }
    const primary = await this.table.getPrimary(this.utype, { signal });
    if (this.#stale(generation, 'acting')) return;
    this.#observe(primary);
    if (primary === undefined) this.#lose('vanished');
    else if (primary.id !== this.#id) this.#lose('superseded');
    else if (outcome.written) this.#deadline.arm(start);
  }

  #onDeadline(): void {
    try {
      if (this.#state === 'acting') {
        this.#lose('deadline');
      } else if (this.#state === 'claimed') {
        this.#logger.debug({ utype: this.utype, id: this.#id }, 'primary: claim not confirmed within T − I');
        this.#setState('seeking');
      }
    } catch (error) {
      this.#logger.error({ utype: this.utype, error }, 'primary: deadline handling failed');
    }
  }

  #startActing(): void {
    const controller = new AbortController();
    this.#acting = { controller, since: this.#clock.now() };
    this.#setState('acting');
    this.#logger.info({ utype: this.utype, id: this.#id, endpoint: this.endpoint, claimedAt: this.#claimedAt }, 'primary: started acting as primary');
    const event: StartedActingEvent = {
      type: 'startedActing',
      id: this.#id,
      utype: this.utype,
      ...(this.endpoint === undefined ? {} : { endpoint: this.endpoint }),
      claimedAt: this.#claimedAt,
      signal: controller.signal,
    };
    this.#events.emit(event);
  }

  /** Ends the term at once: abort the primary's signal, then tell the listeners. */
  #stopActing(reason: StopReason): void {
    const acting = this.#acting;
    if (acting === undefined) return;
    this.#acting = undefined;
    acting.controller.abort(new PrimaryLostError(this.utype, reason));
    const actedForMs = this.#clock.now() - acting.since;
    this.#logger.info({ utype: this.utype, id: this.#id, reason, actedForMs }, 'primary: stopped acting as primary');
    this.#events.emit({ type: 'stoppedActing', id: this.#id, utype: this.utype, reason, actedForMs });
  }

  /** Lost the role while acting: stop at once, then exit (option) or start over under a new id. */
  #lose(reason: Exclude<StopReason, 'stopped'>): void {
    this.#deadline.cancel();
    this.#stopActing(reason);
    this.#generation++;
    this.#round?.abort();
    if (this.#stopping) return; // a listener called stop(): nothing to start over
    if (this.#exitOnLoss) {
      this.#logger.error({ utype: this.utype, id: this.#id, reason }, 'primary: lost the role; exiting (exitOnLoss)');
      this.#loopController.abort(new AbortError());
      this.#setState('stopped');
      this.#exit(1);
      return;
    }
    this.#toRelease = this.#wroteEntry ? this.#id : undefined;
    this.#wroteEntry = false;
    this.#id = this.#newId();
    this.#setState('seeking');
  }

  async #release(id: string, signal: AbortSignal | undefined): Promise<void> {
    const bounded = deadline(this.#clock, this.intervalMs, signal);
    try {
      await this.table.release(id, this.utype, { signal: bounded.signal });
    } catch (error) {
      this.#logger.warn({ utype: this.utype, id, error }, 'primary: could not release the entry; successors wait T');
    } finally {
      bounded.dispose();
    }
  }

  #stale(generation: number, state: ContenderState): boolean {
    return generation !== this.#generation || this.#state !== state;
  }

  #observe(primary: Primary | undefined): void {
    const seen = primary === undefined ? undefined : `${primary.id} ${primary.endpoint ?? ''}`;
    if (seen === this.#observed) return;
    this.#observed = seen;
    this.#events.emit({ type: 'primaryObserved', utype: this.utype, primary });
  }

  #setState(to: ContenderState): void {
    const from = this.#state;
    if (from === to) return;
    this.#state = to;
    this.#logger.debug({ utype: this.utype, id: this.#id, from, to }, 'primary: state changed');
    this.#events.emit({ type: 'stateChanged', id: this.#id, utype: this.utype, from, to });
  }

  #newId(): string {
    const id = this.#generateId();
    checkId(id, 'generateId');
    return id;
  }
}

import { randomUUID } from 'node:crypto';
import { MemoryKV, Namespace, silentLogger, type KV, type Logger } from '@roster/kv-adapter';
import { PrimaryContender } from '@roster/primary';
import type { CliIO } from '../commands/Command.js';
import { ExitCode } from '../CliError.js';
import { connectStore } from '../internal/connectStore.js';
import { commandLoggers } from '../internal/commandLogger.js';
import type { LogFormat } from '../internal/logFormat.js';
import { StopRequest } from '../internal/StopRequest.js';
import { configProblem, idGenerator, type PrimaryStoreOptions } from './primaryConfig.js';
import { formatHumanPrimaryEvent, formatJsonPrimaryEvent, type PrimaryEvent } from './primaryEvents.js';

/** What `roster primary run` was asked to do, parsed from its arguments. */
export interface PrimaryRunOptions extends PrimaryStoreOptions {
  /** Where this instance listens, published in its entry (`--endpoint`). */
  readonly endpoint?: string;
  /** The id of the first term (`--id`). @defaultValue a random UUID without dashes */
  readonly id?: string;
  /** I, in ms. @defaultValue 1000 */
  readonly intervalMs?: number;
  /**
   * Exit with {@link ExitCode.lostPrimary} when the instance stops acting as primary for any reason
   * but a signal, so that a supervisor restarts it (a primary that lost its role exits and is restarted).
   * @defaultValue false: start over in-process under a new id
   */
  readonly exitOnLoss?: boolean;
  /** One JSON object per line on stdout. @defaultValue false */
  readonly json?: boolean;
  /** Debug logs on stderr. @defaultValue false */
  readonly verbose?: boolean;
  /** The format of the logs on stderr (`--log-format`). @defaultValue "text" */
  readonly logFormat?: LogFormat;
}

const COMMAND = 'roster primary run';

/**
 * Runs one contender for the role type until SIGINT or SIGTERM: validates the configuration,
 * connects to the store, starts a `PrimaryContender`, prints what it sees, and on the first signal
 * stops it gracefully (stops acting, releases the entry so a successor need not wait T), prints
 * `stopped`, closes the store and resolves to 0. A second signal resolves at once with 130
 * (SIGINT) or 143 (SIGTERM). With `exitOnLoss`, losing the role (superseded, vanished, deadline)
 * ends the run the same way but resolves to {@link ExitCode.lostPrimary}.
 *
 * @throws {@link CliError} (exit code 2) for an invalid configuration or a store unreachable at start.
 */
export async function runPrimary(options: PrimaryRunOptions, io: CliIO): Promise<number> {
  const { log, libraryLog } = commandLoggers(io, {
    verbose: options.verbose ?? false,
    ...(options.logFormat && { format: options.logFormat }),
    secrets: options.store.secrets,
  });
  checkConfig(options);
  const stop = new StopRequest(
    io,
    (signal) => log.info({ signal }, 'stopping gracefully (send the signal again to exit at once)'),
    (signal) => log.warn({ signal }, 'second signal: exiting without a graceful stop'),
  );
  try {
    const kv = await connectStore({
      command: COMMAND,
      url: options.store.url,
      where: options.store.where,
      ...(options.tls && { tls: options.tls }),
      probeKey: new Namespace(options.group, options.env).key(`probe/${randomUUID()}`),
      ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
      logger: libraryLog,
      signal: stop.signal,
    });
    if (kv === undefined) return ExitCode.ok; // stopped while connecting
    let onLoss!: () => void;
    const lost = new Promise<'lost'>((resolve) => (onLoss = () => resolve('lost')));
    let contender: PrimaryContender;
    try {
      contender = createContender(options, kv, libraryLog, onLoss);
    } catch (error) {
      await kv.close();
      throw configProblem(COMMAND, error, options);
    }
    const self = contender;
    const print = printer(io, options.json ?? false);
    const unsubscribe = subscribe(self, print);
    const graceful = async (): Promise<number> => {
      const base = { ts: Date.now(), id: self.id, utype: self.utype };
      print({ ...base, event: 'started', endpoint: self.endpoint ?? null, intervalMs: self.intervalMs, timeoutMs: self.timeoutMs });
      self.start();
      log.info(
        { id: self.id, type: self.utype, group: options.group, env: options.env, store: options.store.display, storeFrom: options.store.from, intervalMs: self.intervalMs, timeoutMs: self.timeoutMs },
        'contender running',
      );
      const why = await Promise.race([stop.whenRequested().then(() => 'signal' as const), lost]);
      if (why === 'lost') log.warn({ id: self.id, exitCode: ExitCode.lostPrimary }, 'lost the primary role: exiting so that a supervisor restarts this process (--exit-on-loss)');
      await self.stop();
      print({ ts: Date.now(), id: self.id, utype: self.utype, event: 'stopped' });
      unsubscribe();
      await kv.close();
      log.info({ id: self.id }, 'contender stopped');
      return why === 'lost' ? ExitCode.lostPrimary : ExitCode.ok;
    };
    return await Promise.race([graceful(), stop.forced]);
  } finally {
    stop.dispose();
  }
}

function createContender(options: PrimaryRunOptions, kv: KV, logger: Logger, onLoss: () => void): PrimaryContender {
  return new PrimaryContender({
    store: kv,
    namespace: new Namespace(options.group, options.env),
    utype: options.utype,
    ...(options.endpoint !== undefined && { endpoint: options.endpoint }),
    ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.id !== undefined && { generateId: idGenerator(options.id) }),
    logger,
    exitOnLoss: options.exitOnLoss ?? false,
    // The library would call process.exit; the command ends its run instead, and the bin exits.
    exit: () => onLoss(),
  });
}

/** Validates every option before any connection, so that a bad one fails at once. */
function checkConfig(options: PrimaryRunOptions): void {
  try {
    // A contender on a placeholder store checks the namespace, type, endpoint, id and timing.
    createContender(options, new MemoryKV(), silentLogger, () => undefined);
  } catch (error) {
    throw configProblem(COMMAND, error, options);
  }
}

/** Turns the contender's events into lines; returns the function that unsubscribes them all. */
function subscribe(contender: PrimaryContender, print: (event: PrimaryEvent) => void): () => void {
  const utype = contender.utype;
  const offs = [
    contender.on('primaryObserved', ({ primary }) =>
      print({ ts: Date.now(), id: contender.id, utype, event: 'primary', primary: primary?.id ?? null, endpoint: primary?.endpoint ?? null }),
    ),
    contender.on('startedActing', ({ id, endpoint, claimedAt }) =>
      print({ ts: Date.now(), id, utype, event: 'acting', endpoint: endpoint ?? null, claimedAt }),
    ),
    contender.on('stoppedActing', ({ id, reason, actedForMs }) =>
      print({ ts: Date.now(), id, utype, event: 'stopped-acting', reason, actedForMs: Math.round(actedForMs) }),
    ),
  ];
  return () => offs.forEach((off) => off());
}

/** Writes each event as a line on stdout; nothing after `stopped`. */
function printer(io: CliIO, json: boolean): (event: PrimaryEvent) => void {
  let stopped = false;
  return (event) => {
    if (stopped) return;
    if (event.event === 'stopped') stopped = true;
    io.stdout.write(`${json ? formatJsonPrimaryEvent(event) : formatHumanPrimaryEvent(event)}\n`);
  };
}

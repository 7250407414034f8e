import { createNode, resolveConfig, type ResolvedConfig, type RosterNode } from '@roster/election';
import { ConfigError, MemoryKV, RedisKV, StoreUnavailableError, parseStoreUrl, redactStoreUrl } from '@roster/kv-adapter';
import type { CliIO } from '../commands/Command.js';
import { CliError, ExitCode } from '../internal/CliError.js';
import { StderrLogger } from '../internal/StderrLogger.js';
import { StopRequest } from '../internal/StopRequest.js';
import { formatHumanEvent, formatJsonEvent, toNodeEvent, type NodeEvent } from './nodeEvents.js';

/** What `roster node` was asked to do, parsed from its arguments. */
export interface NodeRunOptions {
  /** The store URL (see `parseStoreUrl`). */
  readonly store: string;
  /** The cluster key (`--key`). */
  readonly cluster: string;
  readonly env: string;
  readonly id?: string;
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  /** How long to wait for the store at start. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** One JSON object per line on stdout. @defaultValue false */
  readonly json?: boolean;
  /** Debug logs on stderr. @defaultValue false */
  readonly verbose?: boolean;
}

const COMMAND = 'roster node';

/** The flag behind each `createNode()` / store option, to name it in error messages. */
const FLAG: Readonly<Record<string, string>> = {
  store: '--store',
  cluster: '--key',
  env: '--env',
  id: '--id',
  intervalMs: '--interval',
  timeoutMs: '--timeout',
  connectTimeoutMs: '--connect-timeout',
};

/**
 * Runs one node until SIGINT or SIGTERM: validates the configuration, connects to the store, starts
 * the node, prints its updates, and on the first signal stops it gracefully (a leader says goodbye,
 * a follower leaves), prints `stopped`, closes the store and resolves to 0. A second signal resolves
 * at once with 130 (SIGINT) or 143 (SIGTERM).
 *
 * @throws {@link CliError} (exit code 2) for an invalid configuration or a store unreachable at start.
 */
export async function runNode(options: NodeRunOptions, io: CliIO): Promise<number> {
  const log = new StderrLogger(io.stderr, options.verbose ? 'debug' : 'info');
  const libraryLog = options.verbose ? log : log.atLeast('warn');
  const config = checkConfig(options);
  const target = redactStoreUrl(options.store);

  const stop = new StopRequest(
    io,
    (signal) => log.info({ signal }, 'stopping gracefully (send the signal again to exit at once)'),
    (signal) => log.warn({ signal }, 'second signal: exiting without a graceful stop'),
  );
  try {
    const kv = await connect(options, libraryLog, stop.signal);
    if (kv === undefined) return ExitCode.ok; // stopped while connecting
    let node: RosterNode;
    try {
      node = createNode({
        kv,
        cluster: options.cluster,
        env: options.env,
        logger: libraryLog,
        ...(options.id !== undefined && { id: options.id }),
        ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      });
    } catch (error) {
      await kv.close();
      throw configProblem(error);
    }
    const print = printer(io, options.json ?? false);
    const unwatch = node.watch((update) => {
      const event = toNodeEvent(node.id, update, Date.now());
      if (event) print(event);
      if (update.type === 'goodbye') log.info({ leader: update.leader.id }, 'the leader said goodbye');
    });
    const graceful = async (): Promise<number> => {
      print({ ts: Date.now(), id: node.id, event: 'role', role: node.role, previous: null, reason: 'started' });
      await node.start();
      log.info(
        { id: node.id, cluster: `${options.cluster}/${options.env}`, store: target, intervalMs: config.intervalMs, timeoutMs: config.timeoutMs },
        'node running',
      );
      await stop.whenRequested();
      await node.stop();
      print({ ts: Date.now(), id: node.id, event: 'stopped' });
      unwatch();
      await kv.close();
      log.info({ id: node.id }, 'node stopped');
      return ExitCode.ok;
    };
    return await Promise.race([graceful(), stop.forced]);
  } finally {
    stop.dispose();
  }
}

/** Validates every option before any connection, so that a bad one fails at once. */
function checkConfig(options: NodeRunOptions): ResolvedConfig {
  try {
    parseStoreUrl(options.store);
    // Validates the node options with a placeholder store; the real one is connected next.
    return resolveConfig({
      kv: new MemoryKV(),
      cluster: options.cluster,
      env: options.env,
      ...(options.id !== undefined && { id: options.id }),
      ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
  } catch (error) {
    throw configProblem(error);
  }
}

/** A {@link ConfigError} as a one-line {@link CliError} naming the flag; anything else unchanged. */
function configProblem(error: unknown): unknown {
  if (!ConfigError.is(error)) return error;
  const flag = FLAG[error.field] ?? error.field;
  return new CliError(`${COMMAND}: invalid ${flag}: ${error.message.replace(/^config: /, '')}`, { cause: error });
}

/** Connects to the store; `undefined` when a stop was requested meanwhile. */
async function connect(options: NodeRunOptions, logger: StderrLogger, signal: AbortSignal): Promise<RedisKV | undefined> {
  try {
    return await RedisKV.connect({ url: options.store, connectTimeoutMs: options.connectTimeoutMs ?? 5000, logger }, { signal });
  } catch (error) {
    if (signal.aborted) return undefined;
    if (StoreUnavailableError.is(error)) {
      throw new CliError(`${COMMAND}: cannot reach the store: ${error.message.replace(/^kv: store unavailable: /, '')}`, {
        cause: error,
      });
    }
    throw configProblem(error);
  }
}

/** Writes each event as a line on stdout; nothing after `stopped`. */
function printer(io: CliIO, json: boolean): (event: NodeEvent) => void {
  let stopped = false;
  return (event) => {
    if (stopped) return;
    if (event.event === 'stopped') stopped = true;
    io.stdout.write(`${json ? formatJsonEvent(event) : formatHumanEvent(event)}\n`);
  };
}

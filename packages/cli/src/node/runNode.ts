import { checkNodeOptions, createNode, type NodeSettings, type RosterNode } from '@roster/election';
import type { ConnectionOptions } from 'node:tls';
import { Namespace, realClock, type Timer } from '@roster/kv-adapter';
import { collectDefaultMetrics } from 'prom-client';
import type { CliIO } from '../commands/Command.js';
import { CliError, ExitCode } from '../CliError.js';
import { connectStore } from '../internal/connectStore.js';
import { commandLoggers } from '../internal/commandLogger.js';
import type { LogFormat } from '../internal/logFormat.js';
import type { ResolvedStoreUrl } from '../internal/storeSource.js';
import { StopRequest } from '../internal/StopRequest.js';
import { liveness, observe, readiness, type InstrumentedKV, type Observation, type ProbeInput, type StoreHealth } from '@roster/http';
import { EventStream } from './EventStream.js';
import { formatHumanEvent, formatJsonEvent, toNodeEvent, type NodeEvent } from './nodeEvents.js';
import { resignOnSignal } from './resignOnSignal.js';
import { RecentLines, StatusPage, type NodeStatus } from './StatusPage.js';

/** What `roster node` was asked to do, parsed from its arguments. */
export interface NodeRunOptions {
  /**
   * The store: its URL (checked), its display form (the only one any text shows), where it came
   * from and the passwords every log line hides.
   */
  readonly store: ResolvedStoreUrl;
  /** The format of the logs on stderr (`--log-format`). @defaultValue "text" */
  readonly logFormat?: LogFormat;
  /** The group (`--group`). */
  readonly group: string;
  readonly env: string;
  readonly id?: string;
  /** This node's priority (`--priority`). @defaultValue 0 */
  readonly priority?: number;
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  /** The renew deadline R (`--renew-deadline`). @defaultValue timeoutMs / 2 */
  readonly renewDeadlineMs?: number;
  /** How long to wait for the store at start. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** One JSON object per line on stdout. @defaultValue false */
  readonly json?: boolean;
  /** Debug logs on stderr. @defaultValue false */
  readonly verbose?: boolean;
  /** Serve a status page on this port (0: any free port); none when absent. */
  readonly statusPort?: number;
  /** The address the status page listens on. @defaultValue "127.0.0.1" */
  readonly statusHost?: string;
  /** TLS options for the store, from the TLS flags. */
  readonly tls?: ConnectionOptions;
  /**
   * Turns a `ConfigError` of `createNode()` into the command's one line, in the words of its flags
   * (see `configProblem`). @defaultValue the error unchanged
   */
  readonly configProblem?: (error: unknown) => unknown;
}

const COMMAND = 'roster node';

/**
 * Runs one node until SIGINT or SIGTERM: validates the configuration, connects to the store, starts
 * the node, prints its updates (SIGUSR2 makes a leader resign and stay a member), and on the first
 * stop signal stops it gracefully (a leader says goodbye, a follower leaves), prints `stopped`, closes the store and resolves to 0. A second signal resolves
 * at once with 130 (SIGINT) or 143 (SIGTERM). With `statusPort`, serves a live status page
 * meanwhile, with the events at `/events` (see {@link EventStream}), Prometheus metrics at
 * `/metrics` and the probes `/healthz` and `/readyz` (see docs/cli.md).
 *
 * @throws {@link CliError} (exit code 2) for an invalid configuration, a store unreachable at start,
 *   or a status port that cannot be bound.
 */
export async function runNode(options: NodeRunOptions, io: CliIO): Promise<number> {
  const recent = new RecentLines();
  const { log, libraryLog } = commandLoggers(io, {
    verbose: options.verbose ?? false,
    ...(options.logFormat && { format: options.logFormat }),
    secrets: options.store.secrets,
    tap: (line) => recent.push(line),
  });
  const config = checkConfig(options);
  const target = options.store.display;
  let node: RosterNode | undefined;
  /** The node's store, timed and watched, once connected (with a status page). */
  let store: InstrumentedKV | undefined;
  const events = options.statusPort === undefined ? undefined : new EventStream(config.id, () => status());
  /** With a status page: the node's metrics, probes and their handlers, from the node's settings. */
  const observed = events && observe();
  // Until the node exists, it is connecting.
  const probeInput = (): ProbeInput => (node && observed ? observed.probes.input() : connecting(config));
  const status = (): NodeStatus => nodeStatus(options, config, target, node, recent, probeInput(), store?.health.storeRoundTripMs);

  const stop = new StopRequest(
    io,
    (signal) => log.info({ signal }, 'stopping gracefully (send the signal again to exit at once)'),
    (signal) => log.warn({ signal }, 'second signal: exiting without a graceful stop'),
  );
  if (observed) collectDefaultMetrics({ register: observed.registry });
  let page: StatusPage | undefined;
  let statusTimer: Timer | undefined;
  try {
    page = events && observed && (await serveStatus(options, status, events, observed));
    if (page) log.info({ url: page.url, json: `${page.url}status.json`, events: `${page.url}events`, metrics: `${page.url}metrics` }, 'status page');
    const kv = await connectStore({
      command: COMMAND,
      url: options.store.url,
      where: options.store.where,
      ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
      commandTimeoutMs: config.operationTimeoutMs,
      logger: libraryLog,
      signal: stop.signal,
      probeKey: new Namespace(options.group, options.env).key(`probe/${config.id}`),
      ...(options.tls && { tls: options.tls }),
      ...(options.configProblem && { configProblem: options.configProblem }),
    });
    if (kv === undefined) return ExitCode.ok; // stopped while connecting
    store = observed?.instrument(kv);
    try {
      node = createNode({
        store: store ?? kv,
        group: options.group,
        env: options.env,
        id: config.id,
        logger: libraryLog,
        ...timing(options),
        ...(options.priority !== undefined && { priority: options.priority }),
      });
    } catch (error) {
      await kv.close();
      throw options.configProblem?.(error) ?? error;
    }
    const self = node;
    const print = printer(io, options.json ?? false, recent, events, status);
    observed?.attach(self);
    // The live page's figures (latency, store health) move without events: send them every interval.
    const tick = (): void => {
      if (events && events.sseClients > 0) events.publishStatus(status());
      statusTimer = realClock.setTimer(tick, config.intervalMs);
    };
    if (events) tick();
    const unwatch = self.watch((update) => {
      const event = toNodeEvent(self.id, update, Date.now());
      if (event) print(event);
      if (update.type === 'goodbye') log.info({ leader: update.leader.id }, 'the leader said goodbye');
    });
    const graceful = async (): Promise<number> => {
      print({ ts: Date.now(), id: self.id, event: 'role', role: self.role, previous: null, reason: 'started' });
      await self.start();
      events?.open();
      log.info(
        {
          id: self.id,
          group: options.group,
          env: options.env,
          store: target,
          storeFrom: options.store.from,
          intervalMs: config.intervalMs,
          timeoutMs: config.timeoutMs,
          renewDeadlineMs: config.renewDeadlineMs,
        },
        'node running',
      );
      const stopResigning = resignOnSignal(io, self, log);
      await stop.whenRequested();
      stopResigning();
      await self.stop();
      print({ ts: Date.now(), id: self.id, event: 'stopped' });
      unwatch();
      observed?.close();
      await kv.close();
      log.info({ id: self.id }, 'node stopped');
      return ExitCode.ok;
    };
    return await Promise.race([graceful(), stop.forced]);
  } finally {
    statusTimer?.cancel();
    stop.dispose();
    events?.end();
    await page?.close();
  }
}

async function serveStatus(options: NodeRunOptions, status: () => NodeStatus, events: EventStream, observed: Observation): Promise<StatusPage> {
  const host = options.statusHost ?? '127.0.0.1';
  try {
    return await StatusPage.listen(host, options.statusPort!, status, {
      events,
      metrics: observed.routes['/metrics'],
      probes: { healthz: observed.routes['/healthz'], readyz: observed.routes['/readyz'] },
    });
  } catch (error) {
    const reason = (error as { code?: string }).code === 'EADDRINUSE' ? 'the port is in use' : error instanceof Error ? error.message : String(error);
    throw new CliError(`${COMMAND}: cannot serve the status page on ${host}:${options.statusPort}: ${reason}`, { cause: error });
  }
}

const NO_STORE_YET: StoreHealth = { lastStartedAt: undefined, lastSuccessAt: undefined, lastErrorAt: undefined, lastError: undefined, inFlight: 0, storeRoundTripMs: undefined };

/** What the probes look at while the store is not reached yet (there is no node). */
function connecting(config: NodeSettings): ProbeInput {
  return {
    state: 'connecting',
    role: undefined,
    isLeader: false,
    leader: undefined,
    listed: false,
    store: NO_STORE_YET,
    now: realClock.now(),
    timeoutMs: config.timeoutMs,
    intervalMs: config.intervalMs,
  };
}

/** What the status page shows now. */
function nodeStatus(
  options: NodeRunOptions,
  config: NodeSettings,
  store: string,
  node: RosterNode | undefined,
  recent: RecentLines,
  probe: ProbeInput,
  storeRoundTripMs: number | undefined,
): NodeStatus {
  const leader = node?.leader;
  // A leader sends no PINGs: what the sensor holds is from before it led.
  const ownPongRoundTrip = node?.role === 'leader' ? null : (node?.latency.pongRoundTripMs ?? null);
  const pongRoundTrip = (id: string): number | null => (id === node?.id ? ownPongRoundTrip : (node?.pongRoundTrips().get(id) ?? null));
  const success = probe.store.lastSuccessAt;
  return {
    id: config.id,
    group: options.group,
    env: options.env,
    store,
    state: node?.state ?? 'connecting',
    role: node?.role,
    leader: leader ? { id: leader.id, era: leader.era, nonce: leader.nonce, token: String(leader.token) } : null,
    members: {
      version: node?.members.version ?? 0,
      // The leader knows every follower's reported PONG round trip; any other node only its own.
      list: node?.members.list.map((m) => ({ id: m.id, weight: m.weight, pongRoundTripMs: pongRoundTrip(m.id) })) ?? [],
    },
    latency: {
      storeRoundTripMs: storeRoundTripMs ?? null,
      windowReadMs: node?.latency.windowReadMs ?? null,
      pongRoundTripMs: node?.latency.pongRoundTripMs ?? null,
    },
    intervalMs: config.intervalMs,
    timeoutMs: config.timeoutMs,
    probes: { healthz: liveness(probe), readyz: readiness(probe) },
    storeHealth: {
      reachable: success !== undefined && probe.now - success <= config.timeoutMs,
      lastSuccessAgoMs: success === undefined ? null : probe.now - success,
      lastError: probe.store.lastError ?? null,
      inFlight: probe.store.inFlight,
    },
    stats: node?.stats ?? {},
    recent: recent.lines,
  };
}

/** The durations given, for `createNode()` and `checkNodeOptions()`; the others are the library's defaults. */
function timing(options: NodeRunOptions): { intervalMs?: number; timeoutMs?: number; renewDeadlineMs?: number } {
  return {
    ...(options.intervalMs !== undefined && { intervalMs: options.intervalMs }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.renewDeadlineMs !== undefined && { renewDeadlineMs: options.renewDeadlineMs }),
  };
}

/** Validates every option before any connection, so that a bad one fails at once. */
function checkConfig(options: NodeRunOptions): NodeSettings {
  try {
    return checkNodeOptions({
      group: options.group,
      env: options.env,
      ...(options.id !== undefined && { id: options.id }),
      ...timing(options),
      ...(options.priority !== undefined && { priority: options.priority }),
    });
  } catch (error) {
    throw options.configProblem?.(error) ?? error;
  }
}

/**
 * Writes each event as a line on stdout, keeps it for the status page and sends it to the `/events`
 * clients; nothing after `stopped`.
 */
function printer(io: CliIO, json: boolean, recent: RecentLines, events: EventStream | undefined, status: () => NodeStatus): (event: NodeEvent) => void {
  let stopped = false;
  return (event) => {
    if (stopped) return;
    if (event.event === 'stopped') stopped = true;
    const human = formatHumanEvent(event);
    recent.push(human);
    io.stdout.write(`${json ? formatJsonEvent(event) : human}\n`);
    events?.publish(event);
    if (events && events.sseClients > 0) events.publishStatus(status());
  };
}

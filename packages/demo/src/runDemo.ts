import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { CliError, ExitCode, type CliIO } from '@roster/cli';
import { StopRequest } from '@roster/cli/internal';
import { CLUSTER_CHANGES, reshardHoldMs, runClusterChanges, watchMs } from './ClusterChanges.js';
import { ClusterView } from './ClusterView.js';
import { PlainLog, TeeDisplay, seconds, type DemoDisplay, type DemoInfo } from './DemoDisplay.js';
import { DemoRun } from './DemoRun.js';
import { startDemoStore, type DemoStore, type DemoStoreKind } from './DemoStore.js';
import { DemoWeb } from './DemoWeb.js';
import { LiveDashboard } from './LiveDashboard.js';
import { formatSummary, summarize } from './summary.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** How many nodes run at once. @defaultValue 5 */
  readonly nodes?: number;
  /** How long the demo runs once its nodes are up, in seconds. @defaultValue 20 */
  readonly durationSeconds?: number;
  /** Kill the leader every this many seconds; 0 never. @defaultValue 4 */
  readonly killEverySeconds?: number;
  /** The protocol period I. @defaultValue 200 */
  readonly intervalMs?: number;
  /** The timeout T. @defaultValue 1000 */
  readonly timeoutMs?: number;
  /**
   * Which kind of store to bring up (`--store-kind`). `"cluster"`: a local Redis Cluster of 3
   * masters with a replica each, through a graceful failover of the leader key's master, a live
   * resharding of its slot and a master SIGKILLed (see `runClusterChanges`). @defaultValue "auto"
   */
  readonly storeKind?: DemoStoreKind;
  /** A plain log even on a terminal. @defaultValue false */
  readonly plain?: boolean;
  /** Show the nodes' warnings. @defaultValue false */
  readonly verbose?: boolean;
  /** Serve the live web page on this port of 127.0.0.1 (0: any free port); `null`: no page. @defaultValue 0 */
  readonly webPort?: number | null;
}

/** The defaults of {@link DemoOptions}. */
export const DEMO_DEFAULTS: Readonly<Required<DemoOptions>> = Object.freeze({
  nodes: 5,
  durationSeconds: 20,
  killEverySeconds: 4,
  intervalMs: 200,
  timeoutMs: 1000,
  storeKind: 'auto',
  plain: false,
  verbose: false,
  webPort: 0,
});

/**
 * `pnpm demo`: brings up a store, runs `nodes` real Roster nodes in tinypool child processes,
 * kills the leader's process every `killEverySeconds` and starts a node in its place, measures
 * each failover, shows it all live (on the terminal, and on one web page that shows every node,
 * see {@link DemoWeb}), and prints a summary. The duration counts from the moment
 * every node is up; a failover being measured when it runs out is given up to 5 × T to finish.
 * Stops everything it started before it resolves to the exit code: 0, or 130/143 after a second
 * Ctrl-C/SIGTERM.
 *
 * @throws {@link CliError} (exit code 1) when the store cannot be started.
 */
export async function runDemo(options: DemoOptions, io: CliIO): Promise<number> {
  const o = { ...DEMO_DEFAULTS, ...options };
  const t0 = performance.now();
  const now = (): number => performance.now() - t0;
  let display: DemoDisplay | undefined;
  const stop = new StopRequest(
    io,
    (signal) => display?.note(now(), `${signal}: stopping every node (again to exit at once)`),
    () => display?.note(now(), 'second signal: exiting at once'),
  );
  try {
    // Loaded here, not at the top: only the demo needs a worker pool; `roster node` loads none.
    const { default: Tinypool } = await import('tinypool');
    const store = await startStore(o.storeKind, io);
    const view = new ClusterView();
    let web: DemoWeb | undefined;
    const base: DemoInfo = {
      nodes: o.nodes,
      store: store.description,
      intervalMs: o.intervalMs,
      timeoutMs: o.timeoutMs,
      killEverySeconds: o.killEverySeconds,
      durationSeconds: o.durationSeconds,
    };
    if (o.webPort !== null) {
      try {
        web = await DemoWeb.listen('127.0.0.1', o.webPort, view, base, now);
      } catch (error) {
        await store.stop().catch(() => undefined);
        throw new CliError(`pnpm demo: cannot serve the web page on port ${o.webPort}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    }
    const info: DemoInfo = web ? { ...base, url: web.url } : base;
    const live = io.stdout.isTTY === true && !o.plain;
    const screen = live ? new LiveDashboard(io.stdout, view, info, { now, color: !io.env.NO_COLOR }) : new PlainLog(io.stdout);
    display = web ? new TeeDisplay(screen, web) : screen;
    if (!live) io.stdout.write(plainHeader(info, store));
    const pool = new Tinypool({
      filename: new URL('./worker.js', import.meta.url).href,
      runtime: 'child_process', // killing a worker's process is then a real crash
      isolateWorkers: true, // a fresh process for every node
      minThreads: 0,
      maxThreads: o.nodes + 2,
      env: { ...io.env } as Record<string, string>,
    });
    const shown = display;
    const run = new DemoRun(pool, store, view, display, { group: 'demo', env: 'demo', ...o }, now);
    pool.on('error', (error: Error) => {
      shown.note(now(), `worker pool: ${error.message}`);
      run.poolError(error);
    });
    let code: number = ExitCode.ok;
    try {
      code = await Promise.race([drive(run, view, display, o, stop, now), stop.forced]);
    } finally {
      await pool.destroy().catch(() => undefined);
      await store.stop().catch(() => undefined);
      display.close();
    }
    io.stdout.write(formatSummary(summarize(view, { durationMs: now(), store: store.description, nodes: o.nodes, timeoutMs: o.timeoutMs, intervalMs: o.intervalMs })));
    return code;
  } finally {
    stop.dispose();
  }
}

/** Starts the nodes, runs the clock and the kills, and stops every node gracefully at the end. */
async function drive(
  run: DemoRun,
  view: ClusterView,
  display: DemoDisplay,
  o: Required<DemoOptions>,
  stop: StopRequest,
  now: () => number,
): Promise<number> {
  for (let i = 0; i < o.nodes; i++) run.startNode();
  try {
    await Promise.race([run.started(o.nodes), stop.whenRequested()]);
  } catch (error) {
    // A worker that cannot even start (a broken build, a missing module): say why, and end.
    display.note(now(), `cannot start the nodes: ${error instanceof Error ? error.message : String(error)}`);
    display.freeze();
    await run.stopAll(Promise.resolve());
    return ExitCode.failure;
  }
  const runEnd = new AbortController();
  const until = AbortSignal.any([runEnd.signal, stop.signal]);
  if (!stop.signal.aborted) display.running(now(), now() + o.durationSeconds * 1000);
  const killing = o.killEverySeconds > 0 ? run.killLeaders(o.killEverySeconds * 1000, until) : Promise.resolve();
  const cluster = run.cluster;
  const changes = cluster
    ? runClusterChanges(run, cluster, view, display, { group: 'demo', env: 'demo', intervalMs: o.intervalMs, timeoutMs: o.timeoutMs, durationMs: o.durationSeconds * 1000 }, until, now)
    : Promise.resolve();
  void (async () => {
    await delay(o.durationSeconds * 1000, undefined, { signal: stop.signal });
    runEnd.abort();
    // Let a failover being measured finish, so that the summary has it.
    const giveUpAt = now() + 5 * o.timeoutMs;
    while (view.pending && now() < giveUpAt) await delay(50, undefined, { signal: stop.signal });
    stop.request();
  })().catch(() => undefined);
  await stop.whenRequested();
  runEnd.abort();
  display.freeze();
  await run.stopAll(Promise.all([killing, changes]).then(() => undefined));
  return 0;
}

async function startStore(kind: DemoStoreKind, io: CliIO): Promise<DemoStore> {
  try {
    return await startDemoStore(kind, io.env);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`pnpm demo: cannot start the store: ${message}`, { exitCode: ExitCode.failure, cause: error });
  }
}

function plainHeader(info: DemoInfo, store: DemoStore): string {
  const kills = info.killEverySeconds > 0 ? `killing the leader every ${info.killEverySeconds} s` : 'no kills';
  return [
    `roster demo: store: ${store.description}${store.pid ? ` (pid ${store.pid})` : ''}`,
    `roster demo: ${info.nodes} nodes, interval ${info.intervalMs} ms, timeout ${info.timeoutMs} ms, ${kills}, for ${info.durationSeconds} s`,
    ...(store.cluster ? clusterPlan(info) : []),
    ...(info.url ? [`roster demo: watch every node live at ${info.url}`] : []),
    '',
  ].join('\n');
}

/** What `--cluster` will do, and when: the header's lines before the URL. */
function clusterPlan(info: DemoInfo): string[] {
  const at = (fraction: number): string => `+${(fraction * info.durationSeconds).toFixed(1)}s`;
  const [failover, reshard, kill] = CLUSTER_CHANGES;
  return [
    `roster demo: Redis Cluster changes, each aimed at the leader key's nonce where the leader broadcasts, once the nodes are at rest, watched ${seconds(watchMs(info))} after it:`,
    `roster demo:   from ${at(failover!.dueAt)} of the run, a graceful failover of its master; from ${at(reshard!.dueAt)}, a resharding of its slot held MIGRATING ${seconds(reshardHoldMs(info.intervalMs))};`,
    `roster demo:   from ${at(kill!.dueAt)}, its master SIGKILLed (the cluster promotes the replica); no leader kill meanwhile`,
  ];
}

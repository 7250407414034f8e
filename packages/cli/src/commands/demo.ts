import { DEMO_DEFAULTS, runDemo } from '../demo/runDemo.js';
import type { DemoStoreKind } from '../demo/DemoStore.js';
import { CliError } from '../CliError.js';
import { decimalOption, integerOption, parseOptions } from '../internal/parseOptions.js';
import type { Command } from './Command.js';

const NAME = 'roster demo';
const d = DEMO_DEFAULTS;

const HELP = `Usage: roster demo [options]        (from a clone: pnpm demo [options])

Runs a Roster cluster on this machine and shows an election at work: brings up its own store
(a real redis-server when one is installed, else an in-process store shared with the nodes),
starts N nodes as worker processes, kills the leader's process every few seconds, restarts a node
in its place, and measures each failover. Ends after --duration seconds or on Ctrl-C, stops all
it started, and prints a summary.

Options:
  --nodes N          nodes at a time [default: ${d.nodes}]
  --duration S       seconds to run [default: ${d.durationSeconds}]
  --kill-every S     kill the leader every S seconds, 0 never [default: ${d.killEverySeconds}]
  --interval MS      the protocol period I [default: ${d.intervalMs}]
  --timeout MS       the failure timeout T, more than twice the interval [default: ${d.timeoutMs}]
  --store KIND       auto, redis, cluster or memory [default: auto]
  --cluster          the same as --store cluster: a local Redis Cluster of 3 masters
                     (redis-server); a third into the run the master serving the leader
                     key's current nonce is SIGKILLed, two thirds into it it is restarted
  --web-port PORT    serve the live web page of every node on this port of 127.0.0.1,
                     0 any free port, "off" none [default: 0]
  --plain            a plain log even on a terminal (the default when stdout is not one)
  --verbose          also show the nodes' warnings
  -h, --help         show this help
`;

/** The options `roster demo` accepts (`parseArgs` specs). */
export const DEMO_OPTIONS = {
  nodes: { type: 'string' },
  duration: { type: 'string' },
  'kill-every': { type: 'string' },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  store: { type: 'string' },
  cluster: { type: 'boolean' },
  'web-port': { type: 'string' },
  plain: { type: 'boolean' },
  verbose: { type: 'boolean' },
} as const;

/** `roster demo`: the whole idea, working, in one command. */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'run a local cluster, kill its leader every few seconds, measure failovers',
  help: HELP,
  async run(args, io) {
    const { values } = parseOptions(NAME, args, DEMO_OPTIONS);
    if (values.cluster && values.store !== undefined && values.store !== 'cluster') {
      throw new CliError(`${NAME}: --cluster runs on a Redis Cluster; it cannot be combined with --store ${values.store}`);
    }
    const store = values.cluster ? 'cluster' : (values.store ?? 'auto');
    if (store !== 'auto' && store !== 'redis' && store !== 'cluster' && store !== 'memory') {
      throw new CliError(`${NAME}: --store must be auto, redis, cluster or memory, got ${JSON.stringify(store)}`);
    }
    const intervalMs = integerOption(NAME, '--interval', values.interval, { unit: 'milliseconds' }) ?? d.intervalMs;
    const timeoutMs = integerOption(NAME, '--timeout', values.timeout, { unit: 'milliseconds' }) ?? d.timeoutMs;
    if (timeoutMs <= 2 * intervalMs) {
      throw new CliError(`${NAME}: --timeout (${timeoutMs}) must be more than twice --interval (${intervalMs})`);
    }
    const web = values['web-port'];
    const webPort = web === 'off' ? null : (integerOption(NAME, '--web-port', web, { min: 0, max: 65535 }) ?? d.webPort);
    return runDemo(
      {
        nodes: integerOption(NAME, '--nodes', values.nodes, { min: 1, max: 50 }) ?? d.nodes,
        durationSeconds: decimalOption(NAME, '--duration', values.duration, 'seconds') ?? d.durationSeconds,
        killEverySeconds: decimalOption(NAME, '--kill-every', values['kill-every'], 'seconds') ?? d.killEverySeconds,
        intervalMs,
        timeoutMs,
        store: store as DemoStoreKind,
        plain: values.plain ?? false,
        verbose: values.verbose ?? false,
        webPort,
      },
      io,
    );
  },
};

import { checkNodeOptions } from '@roster/election';
import type { Command } from '@roster/cli';
import { configProblem, defineFlags, flag, helpFlag, NODE_TIMING, problem, type Timing } from '@roster/cli/internal';
import { DEMO_DEFAULTS, runDemo } from './runDemo.js';

const NAME = 'pnpm demo';
const d = DEMO_DEFAULTS;

/** The flags of `pnpm demo`, declared in `@roster/cli`'s one table (parser, `--help`, docs/cli.md). */
export const DEMO_FLAGS = defineFlags(NAME, {
  nodes: flag.integer('nodes', { placeholder: 'N', min: 1, max: 50, help: 'nodes at a time', defaultValue: d.nodes }),
  durationSeconds: flag.decimal('duration', { placeholder: 'S', unit: 'seconds', help: 'seconds to run, once every node is up', defaultValue: d.durationSeconds }),
  killEverySeconds: flag.decimal('kill-every', { placeholder: 'S', unit: 'seconds', help: 'kill the leader every S seconds, 0 never', defaultValue: d.killEverySeconds }),
  intervalMs: flag.integer('interval', { placeholder: 'MS', unit: 'milliseconds', help: 'the protocol period I', defaultValue: d.intervalMs }),
  timeoutMs: flag.integer('timeout', { placeholder: 'MS', unit: 'milliseconds', help: 'the failure timeout T, more than twice the interval', defaultValue: d.timeoutMs }),
  storeKind: flag.choice('store-kind', {
    placeholder: 'KIND',
    choices: ['auto', 'redis', 'cluster', 'memory'],
    defaultValue: d.storeKind,
    help: 'the kind of store the demo brings up: auto (a redis-server when one is installed, else in-process), redis, cluster (a local Redis Cluster) or memory (in-process)',
  }),
  cluster: flag.boolean('cluster', {
    help: "the same as --store-kind cluster: a local Redis Cluster of 3 masters with a replica each (redis-server), where the leader key's master is failed over gracefully, its slot resharded live, and a master SIGKILLed (its replica promoted), each with the leader watched",
  }),
  webPort: flag.custom('web-port', {
    placeholder: 'PORT|off',
    expected: 'an integer from 0 to 65535, or off',
    parse: (raw): number | null | undefined => (raw === 'off' ? null : /^\d{1,5}$/.test(raw.trim()) && Number(raw) <= 65535 ? Number(raw) : undefined),
    defaultValue: d.webPort,
    help: 'serve the live web page of every node on this port of 127.0.0.1, 0 any free port, off none',
    defaultText: String(d.webPort),
  }),
  plain: flag.boolean('plain', { help: 'a plain log even on a terminal (the default when stdout is not one)' }),
  verbose: flag.boolean('verbose', { help: "also show the nodes' warnings" }),
  help: helpFlag(),
});

const F = DEMO_FLAGS;

const HELP = `Usage: pnpm demo [options]        (from a clone of the repository, after pnpm install)

Runs a Roster cluster on this machine and shows an election at work: brings up its own store
(a real redis-server when one is installed, else an in-process store shared with the nodes),
starts N nodes as worker processes, kills the leader's process every few seconds, restarts a node
in its place, and measures each failover. Ends after ${F.name('durationSeconds')} seconds or on Ctrl-C, stops all
it started, and prints a summary. With ${F.name('cluster')}, on a Redis Cluster with replicas: a graceful
failover, a live resharding and a killed master, each showing whether the leader changed.

Options:
${F.helpLines(undefined, { column: 21 })}
`;

/**
 * `pnpm demo`: the whole idea, working, in one command. A {@link Command} of `@roster/cli`'s shape,
 * run by its `runCli` (see `main.ts`), but not one of the published `roster`'s commands.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'run a local cluster (on redis-server or in-process), kill its leader every few seconds, measure failovers',
  help: HELP,
  async run(args, io) {
    const parsed = F.parse(args, io.env);
    const { values } = parsed;
    if (values.cluster && parsed.given('storeKind') && values.storeKind !== 'cluster') {
      throw problem(NAME, `${F.name('cluster')} runs on a Redis Cluster; it cannot be combined with ${F.name('storeKind')} ${values.storeKind}`);
    }
    const timing: Timing = {
      interval: { value: values.intervalMs, flag: F.name('intervalMs'), given: parsed.given('intervalMs') },
      timeout: { value: values.timeoutMs, flag: F.name('timeoutMs'), given: parsed.given('timeoutMs') },
      renewDeadline: { value: NODE_TIMING.renewDeadlineOf(values.timeoutMs), given: false },
    };
    try {
      // Each worker's createNode() would refuse the timing: refuse it here, once, in the flags' words.
      checkNodeOptions({ group: 'demo', env: 'demo', intervalMs: values.intervalMs, timeoutMs: values.timeoutMs });
    } catch (error) {
      throw configProblem(parsed, error, timing);
    }
    return runDemo(
      {
        nodes: values.nodes,
        durationSeconds: values.durationSeconds,
        killEverySeconds: values.killEverySeconds,
        intervalMs: values.intervalMs,
        timeoutMs: values.timeoutMs,
        storeKind: values.cluster ? 'cluster' : values.storeKind,
        plain: values.plain,
        verbose: values.verbose,
        webPort: values.webPort,
      },
      io,
    );
  },
};

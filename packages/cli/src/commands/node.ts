import { MAX_PRIORITY, priorityFromVersion } from '@roster/election';
import { runNode } from '../node/runNode.js';
import {
  connectTimeoutFlag,
  envFlag,
  groupFlag,
  intervalFlag,
  jsonFlag,
  logFormatFlag,
  storeFileFlag,
  storeFlag,
  timeoutFlag,
  verboseFlag,
} from '../internal/commonFlags.js';
import { configProblem, NODE_TIMING, nodeTiming } from '../internal/configProblems.js';
import { defineFlags, flag, helpFlag, wrap } from '../internal/flags.js';
import { storeHelp } from '../internal/storeHelp.js';
import { STORE_KINDS } from '../internal/storeForms.js';
import { requireStoreUrl } from '../internal/storeSource.js';
import { TLS_KEYS, tlsFlags, tlsHeading, tlsOptions } from '../internal/tlsOptions.js';
import type { Command } from './Command.js';

const NAME = 'roster node';

/** The flags of `roster node`, in the order `--help` and docs/cli.md list them. */
export const NODE_FLAGS = defineFlags(NAME, {
  store: storeFlag(),
  storeFile: storeFileFlag(),
  group: groupFlag('billing'),
  env: envFlag(),
  id: flag.string('id', { placeholder: 'ID', help: "this node's id: 1-128 of A-Z a-z 0-9 . _ @ -", defaultText: 'a fresh UUID without dashes' }),
  intervalMs: intervalFlag('the protocol period I in milliseconds', NODE_TIMING.intervalMs),
  timeoutMs: timeoutFlag('the failure timeout T in milliseconds, more than twice the interval', '5 × --interval'),
  renewDeadlineMs: flag.integer('renew-deadline', {
    placeholder: 'MS',
    unit: 'milliseconds',
    help: 'the renew deadline R in milliseconds: a leader that could not publish for this long stops calling itself leader; more than the interval and less than the timeout minus the interval',
    docs: '([protocol.md](protocol.md): the lease)',
    defaultText: '--timeout / 2',
  }),
  priority: flag.custom('priority', {
    placeholder: 'N|version:X.Y.Z',
    env: 'ROSTER_PRIORITY',
    help: `this node's priority: among candidates the higher wins, and a leader hands over to a member of higher priority once it has been healthy for the timeout; an integer from 0 to ${MAX_PRIORITY}, or version:MAJOR.MINOR.PATCH for major × 1000000 + minor × 1000 + patch, so that a rolling deploy moves leadership once, to the new version`,
    docs: '([protocol.md](protocol.md#priorities-and-rolling-deploys))',
    expected: `an integer from 0 to ${MAX_PRIORITY} or version:MAJOR.MINOR.PATCH (minor and patch at most 999, no pre-release)`,
    parse: parsePriority,
    defaultValue: 0,
    defaultText: '0',
  }),
  connectTimeoutMs: connectTimeoutFlag(),
  json: jsonFlag(),
  statusPort: flag.integer('status-port', {
    placeholder: 'PORT',
    min: 0,
    max: 65535,
    help: 'serve a status page (members, leader, role, latency, recent lines) at http://HOST:PORT/ and /status.json, the events as NDJSON at /events (for @roster/client), /metrics, /healthz and /readyz; 0 picks a free port',
    docs: '([below](#the-status-page))',
  }),
  statusHost: flag.string('status-host', { placeholder: 'HOST', help: 'the address of the status page', defaultText: '127.0.0.1' }),
  verbose: verboseFlag(),
  logFormat: logFormatFlag(),
  help: helpFlag(),
  ...tlsFlags('--store'),
});

const F = NODE_FLAGS;
const f = (key: keyof typeof F.flags): string => F.syntax(key);
const n = (key: keyof typeof F.flags): string => F.name(key);

const HELP = `Usage: roster node [${f('store')} | ${f('storeFile')}] ${f('group')} ${f('env')} [options]

${wrap(
  `Runs one Roster node: joins the group GROUP of environment ENV on a key-value store (${STORE_KINDS}), takes part in leader election, and prints the role, leader and member changes it sees until stopped with Ctrl-C (SIGINT) or SIGTERM, which make it leave gracefully. SIGUSR2 makes a leader resign: another node takes over at once, and this one stays a member.`,
  96,
).join('\n')}

${storeHelp(F, ['store', 'storeFile'])}

Required:
${F.helpLines(['group', 'env'])}

Options:
${F.helpLines(['id', 'intervalMs', 'timeoutMs', 'renewDeadlineMs', 'priority', 'connectTimeoutMs', 'json', 'statusPort', 'statusHost', 'verbose', 'logFormat', 'help'])}

${tlsHeading()}
${F.helpLines(TLS_KEYS)}

Exit codes:
  0  stopped by SIGINT or SIGTERM (gracefully: a leader resigns, a follower leaves)
  2  bad arguments, an invalid configuration, or a store unreachable or refusing
     access at start (TLS verification, credentials, a missing ACL permission)
  1  an unexpected error; 130/143 a second SIGINT/SIGTERM cut the graceful stop short

Examples:
  roster node ${n('store')} redis://127.0.0.1:6379 ${n('group')} billing ${n('env')} dev
  roster node ${n('store')} redis://127.0.0.1:6379 ${n('group')} billing ${n('env')} dev ${n('id')} web-1 ${n('json')}
  roster node ${n('store')} 10.0.0.1:7000,10.0.0.2:7000 ${n('group')} billing ${n('env')} prod ${n('intervalMs')} 500 ${n('timeoutMs')} 3000
  roster node ${n('store')} postgres://roster@db.internal/app ${n('group')} billing ${n('env')} dev ${n('statusPort')} 8080
  ROSTER_STORE_URL=etcd://10.0.0.5:2379 roster node ${n('group')} billing ${n('env')} prod
  ROSTER_STORE_URL=redis://10.0.0.5:6379 ROSTER_STORE_PASSWORD=... roster node ${n('group')} billing ${n('env')} prod
  roster node ${n('store')} redis://10.0.0.5:6379 ${n('group')} billing ${n('env')} prod ${n('priority')} version:1.4.2
  roster node ${n('storeFile')} /run/secrets/roster-store ${n('group')} billing ${n('env')} prod ${n('logFormat')} json
`;

/** `roster node`: one node as a process. */
export const nodeCommand: Command = {
  name: 'node',
  summary: `run one node against a key-value store (${STORE_KINDS}) and print what it sees`,
  help: HELP,
  async run(args, io) {
    const parsed = F.parse(args, io.env);
    const { values } = parsed;
    const store = requireStoreUrl(NAME, { url: values.store, source: parsed.source('store'), file: values.storeFile }, io.env);
    const tls = tlsOptions(parsed);
    const timing = nodeTiming(parsed, { interval: 'intervalMs', timeout: 'timeoutMs', renewDeadline: 'renewDeadlineMs' });
    return runNode(
      {
        store,
        group: values.group,
        env: values.env,
        json: values.json,
        logFormat: values.logFormat,
        verbose: values.verbose,
        intervalMs: values.intervalMs,
        ...(values.id !== undefined && { id: values.id }),
        ...(values.priority !== 0 && { priority: values.priority }),
        ...(values.timeoutMs !== undefined && { timeoutMs: values.timeoutMs }),
        ...(values.renewDeadlineMs !== undefined && { renewDeadlineMs: values.renewDeadlineMs }),
        ...(values.connectTimeoutMs !== undefined && { connectTimeoutMs: values.connectTimeoutMs }),
        ...(values.statusPort !== undefined && { statusPort: values.statusPort }),
        ...(values.statusHost !== undefined && { statusHost: values.statusHost }),
        ...(tls && { tls }),
        configProblem: (error) => configProblem(parsed, error, timing),
      },
      io,
    );
  },
};

/**
 * The value of `--priority`: an integer from 0 to `MAX_PRIORITY`, or `version:X.Y.Z` through
 * `priorityFromVersion()`; `undefined` (refused, with the flag's message) for anything else.
 */
export function parsePriority(raw: string): number | undefined {
  if (raw.startsWith('version:')) {
    try {
      return priorityFromVersion(raw.slice('version:'.length));
    } catch {
      return undefined;
    }
  }
  if (!/^(0|[1-9]\d{0,11})$/.test(raw)) return undefined;
  const value = Number(raw);
  return value <= MAX_PRIORITY ? value : undefined;
}

import { runNode } from '../node/runNode.js';
import { LOG_FORMAT_HELP, logFormatOption } from '../internal/logFormat.js';
import { integerOption, parseOptions, required } from '../internal/parseOptions.js';
import { STORE_HELP } from '../internal/storeHelp.js';
import { requireStoreUrl } from '../internal/storeSource.js';
import { TLS_FLAGS, tlsHelp, tlsOptions } from '../internal/tlsOptions.js';
import type { Command } from './Command.js';

const NAME = 'roster node';

const HELP = `Usage: roster node [--store URL | --store-file PATH] --key KEY --env ENV [options]

Runs one Roster node: joins the cluster KEY of environment ENV on a Redis store, takes part in
leader election, and prints the role, leader and member changes it sees until stopped with
Ctrl-C (SIGINT) or SIGTERM, which make it leave gracefully. SIGUSR2 makes a leader resign:
another node takes over at once, and this one stays a member.

${STORE_HELP}

Required:
  --key KEY             the cluster key, e.g. the application name
  --env ENV             the environment, e.g. production; clusters of different ones never meet

Options:
  --id ID               this node's id: 1-128 of A-Z a-z 0-9 . _ @ -
                        [default: a fresh UUID without dashes]
  --interval MS         the protocol period I in milliseconds [default: 1000]
  --timeout MS          the failure timeout T in milliseconds, more than twice the interval
                        [default: 5 x interval]
  --connect-timeout MS  how long to wait for the store at start [default: 5000]
  --json                print one JSON object per line on stdout and nothing else
                        (the format is a public contract: docs/cli.md)
  --status-port PORT    serve a status page (members, leader, role, latency, recent
                        lines) at http://HOST:PORT/ and /status.json, and the events as
                        NDJSON at /events (for @roster/client); 0 picks a free port
  --status-host HOST    the address of the status page [default: 127.0.0.1]
  --verbose             debug logs on stderr
${LOG_FORMAT_HELP}
  -h, --help            show this help

${tlsHelp('--store')}

Exit codes:
  0  stopped by SIGINT or SIGTERM (gracefully: a leader resigns, a follower leaves)
  2  bad arguments, an invalid configuration, or a store unreachable or refusing
     access at start (TLS verification, credentials, a missing ACL permission)
  1  an unexpected error; 130/143 a second SIGINT/SIGTERM cut the graceful stop short

Examples:
  roster node --store redis://127.0.0.1:6379 --key billing --env dev
  roster node --store redis://127.0.0.1:6379 --key billing --env dev --id web-1 --json
  roster node --store 10.0.0.1:7000,10.0.0.2:7000 --key billing --env prod --interval 500 --timeout 3000
  roster node --store redis://127.0.0.1:6379 --key billing --env dev --status-port 8080
  ROSTER_STORE_URL=redis://10.0.0.5:6379 ROSTER_STORE_PASSWORD=... roster node --key billing --env prod
  roster node --store-file /run/secrets/roster-store --key billing --env prod --log-format json
`;

/** The options `roster node` accepts (`parseArgs` specs). */
export const NODE_OPTIONS = {
  store: { type: 'string' },
  'store-file': { type: 'string' },
  'log-format': { type: 'string' },
  key: { type: 'string' },
  env: { type: 'string' },
  id: { type: 'string' },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  'connect-timeout': { type: 'string' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  'status-port': { type: 'string' },
  'status-host': { type: 'string' },
  ...TLS_FLAGS,
} as const;

/** `roster node`: one node as a process. */
export const nodeCommand: Command = {
  name: 'node',
  summary: 'run one node against a Redis store and print what it sees',
  help: HELP,
  async run(args, io) {
    const { values } = parseOptions(NAME, args, NODE_OPTIONS);
    const tls = tlsOptions(NAME, values, io.env);
    const logFormat = logFormatOption(NAME, values['log-format']);
    const cluster = required(NAME, '--key', values.key, 'billing');
    const env = required(NAME, '--env', values.env, 'production');
    const store = requireStoreUrl(NAME, { url: values.store, file: values['store-file'] }, io.env);
    const statusPort = integerOption(NAME, '--status-port', values['status-port'], { min: 0, max: 65535 });
    const intervalMs = integerOption(NAME, '--interval', values.interval, { unit: 'milliseconds' });
    const timeoutMs = integerOption(NAME, '--timeout', values.timeout, { unit: 'milliseconds' });
    const connectTimeoutMs = integerOption(NAME, '--connect-timeout', values['connect-timeout'], { unit: 'milliseconds' });
    return runNode(
      {
        store: store.url,
        storeFrom: store.from,
        storeSecrets: store.secrets,
        cluster,
        env,
        json: values.json ?? false,
        logFormat,
        verbose: values.verbose ?? false,
        ...(values.id !== undefined && { id: values.id }),
        ...(intervalMs !== undefined && { intervalMs }),
        ...(timeoutMs !== undefined && { timeoutMs }),
        ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
        ...(statusPort !== undefined && { statusPort }),
        ...(values['status-host'] !== undefined && { statusHost: values['status-host'] }),
        ...(tls && { tls }),
      },
      io,
    );
  },
};

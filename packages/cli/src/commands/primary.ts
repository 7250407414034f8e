import type { ConnectionOptions } from 'node:tls';
import { CliError, ExitCode } from '../CliError.js';
import { LOG_FORMAT_HELP, logFormatOption } from '../internal/logFormat.js';
import { integerOption, parseOptions, required } from '../internal/parseOptions.js';
import { STORE_HELP } from '../internal/storeHelp.js';
import { requireStoreUrl } from '../internal/storeSource.js';
import { TLS_FLAGS, tlsHelp, tlsOptions, type TlsFlagValues } from '../internal/tlsOptions.js';
import { getPrimary } from '../primary/getPrimary.js';
import { runPrimary } from '../primary/runPrimary.js';
import type { CliIO, Command } from './Command.js';

const NAME = 'roster primary';

const HELP = `Usage: roster primary run [--store URL | --store-file PATH] --key KEY --env ENV --type TYPE [options]
       roster primary get [--store URL | --store-file PATH] --key KEY --env ENV --type TYPE [--json]

One primary per role type (@roster/primary): instances of a type contend through a
heartbeat table in the store, judged by the store's own clock; clients resolve the primary of
a type to the endpoint it published. See docs/primary.md.

  run   contend for the role type and print what happens: who the primary is, when this
        instance starts and stops acting as primary. Ctrl-C (SIGINT) or SIGTERM stop it
        gracefully: it stops acting, then releases its entry so that another takes over at once.
  get   print the current primary of the role type once: its id, endpoint and the age of its
        last heartbeat (store time), or "none".

${STORE_HELP}

Required:
  --key KEY             the cluster key, e.g. the application name
  --env ENV             the environment, e.g. production
  --type TYPE           the role type: 1-128 characters without whitespace, e.g. billing

Options of run:
  --endpoint ADDR       where this instance listens, published for \`get\` and resolvers
  --id ID               this instance's id: 1-128 characters without whitespace; after a loss
                        it starts over as ID-2, ID-3, ... [default: a fresh UUID without dashes]
  --interval MS         the heartbeat interval I in milliseconds [default: 1000]
  --timeout MS          the heartbeat timeout T in milliseconds, more than twice the interval
                        [default: 5000]
  --exit-on-loss        exit with code ${ExitCode.lostPrimary} when this instance stops acting as primary (superseded,
                        entry vanished, or no heartbeat for T - I), so a supervisor restarts it;
                        without it the instance starts over in-process under a new id
  --json                print one JSON object per line on stdout and nothing else
                        (the format is a public contract: docs/cli.md)
  --verbose             debug logs on stderr
${LOG_FORMAT_HELP}

Options of get:
  --timeout MS          T: a heartbeat older than this (store time) is no primary; use the
                        contenders' value [default: 5000]
  --json                print one JSON object instead of a line

Both:
  --connect-timeout MS  how long to wait for the store [default: 5000]
  -h, --help            show this help

${tlsHelp('--store')}

Exit codes:
  0  run: stopped by SIGINT or SIGTERM (gracefully); get: a primary was found
  ${ExitCode.noPrimary}  get: the role type has no primary
  ${ExitCode.lostPrimary}  run --exit-on-loss: this instance stopped acting as primary
  2  bad arguments, an invalid configuration, or a store that cannot be reached
  1  an unexpected error; 130/143 a second SIGINT/SIGTERM cut the graceful stop short

Examples:
  roster primary run --store redis://127.0.0.1:6379 --key shop --env dev --type billing \\
    --endpoint 10.0.0.7:8080
  roster primary run --store redis://127.0.0.1:6379 --key shop --env dev --type billing \\
    --id "$HOSTNAME" --interval 500 --timeout 2500 --exit-on-loss --json
  roster primary get --store redis://127.0.0.1:6379 --key shop --env dev --type billing
`;

/** `roster primary`: contend for a role type (`run`) or ask who holds it (`get`). */
export const primaryCommand: Command = {
  name: 'primary',
  summary: 'one primary per role type: run a contender, or get the current primary',
  help: HELP,
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'run':
        return run(rest, io);
      case 'get':
        return get(rest, io);
      case undefined:
        throw new CliError(`${NAME}: expected run or get (see \`${NAME} --help\`)`);
      default:
        throw new CliError(`${NAME}: unknown subcommand ${JSON.stringify(sub)}, expected run or get (see \`${NAME} --help\`)`);
    }
  },
};

async function run(args: readonly string[], io: CliIO): Promise<number> {
  const command = `${NAME} run`;
  const { values } = parseOptions(command, args, PRIMARY_RUN_OPTIONS);
  const logFormat = logFormatOption(command, values['log-format']);
  const intervalMs = integerOption(command, '--interval', values.interval, { unit: 'milliseconds' });
  return runPrimary(
    {
      ...requiredStoreValues(command, values, io),
      ...timeouts(command, values),
      ...(values.endpoint !== undefined && { endpoint: values.endpoint }),
      ...(values.id !== undefined && { id: values.id }),
      ...(intervalMs !== undefined && { intervalMs }),
      exitOnLoss: values['exit-on-loss'] ?? false,
      json: values.json ?? false,
      logFormat,
      verbose: values.verbose ?? false,
    },
    io,
  );
}

async function get(args: readonly string[], io: CliIO): Promise<number> {
  const command = `${NAME} get`;
  const { values } = parseOptions(command, args, PRIMARY_GET_OPTIONS);
  return getPrimary({ ...requiredStoreValues(command, values, io), ...timeouts(command, values), json: values.json ?? false }, io);
}

const storeOptions = {
  store: { type: 'string' },
  'store-file': { type: 'string' },
  key: { type: 'string' },
  env: { type: 'string' },
  type: { type: 'string' },
  'connect-timeout': { type: 'string' },
  ...TLS_FLAGS,
} as const;

/** The options `roster primary run` accepts (`parseArgs` specs). */
export const PRIMARY_RUN_OPTIONS = {
  ...storeOptions,
  endpoint: { type: 'string' },
  id: { type: 'string' },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  'exit-on-loss': { type: 'boolean' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' },
  'log-format': { type: 'string' },
} as const;

/** The options `roster primary get` accepts (`parseArgs` specs). */
export const PRIMARY_GET_OPTIONS = {
  ...storeOptions,
  timeout: { type: 'string' },
  json: { type: 'boolean' },
} as const;

interface StoreValues extends TlsFlagValues {
  readonly store?: string | undefined;
  readonly 'store-file'?: string | undefined;
  readonly key?: string | undefined;
  readonly env?: string | undefined;
  readonly type?: string | undefined;
  readonly timeout?: string | undefined;
  readonly 'connect-timeout'?: string | undefined;
}

function requiredStoreValues(
  command: string,
  values: StoreValues,
  io: CliIO,
): { store: string; storeSecrets: readonly string[]; storeFrom: string; cluster: string; env: string; utype: string; tls?: ConnectionOptions } {
  const tls = tlsOptions(command, values, io.env);
  const cluster = required(command, '--key', values.key, 'shop');
  const env = required(command, '--env', values.env, 'production');
  const utype = required(command, '--type', values.type, 'billing');
  const store = requireStoreUrl(command, { url: values.store, file: values['store-file'] }, io.env);
  return { ...(tls && { tls }), store: store.url, storeSecrets: store.secrets, storeFrom: store.from, cluster, env, utype };
}

function timeouts(command: string, values: StoreValues): { timeoutMs?: number; connectTimeoutMs?: number } {
  const timeoutMs = integerOption(command, '--timeout', values.timeout, { unit: 'milliseconds' });
  const connectTimeoutMs = integerOption(command, '--connect-timeout', values['connect-timeout'], { unit: 'milliseconds' });
  return { ...(timeoutMs !== undefined && { timeoutMs }), ...(connectTimeoutMs !== undefined && { connectTimeoutMs }) };
}


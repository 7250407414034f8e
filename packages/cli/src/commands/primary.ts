import { ExitCode } from '../CliError.js';
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
import { configProblem, type Timing } from '../internal/configProblems.js';
import { defineFlags, flag, flagsMarkdown, helpFlag, type ParsedFlags } from '../internal/flags.js';
import { problem } from '../internal/problems.js';
import { storeHelp } from '../internal/storeHelp.js';
import { requireStoreUrl } from '../internal/storeSource.js';
import { TLS_KEYS, tlsFlags, tlsHeading, tlsOptions } from '../internal/tlsOptions.js';
import { getPrimary } from '../primary/getPrimary.js';
import type { PrimaryStoreOptions } from '../primary/primaryConfig.js';
import { runPrimary } from '../primary/runPrimary.js';
import type { CliIO, Command } from './Command.js';

const NAME = 'roster primary';

/** The defaults of `@roster/primary`'s timing (I = 1 s, T = 5 s); test/configProblems.test.ts checks them. */
export const PRIMARY_TIMING = Object.freeze({ intervalMs: 1000, timeoutMs: 5000 });

/** The flags `run` and `get` share: the store, the namespace, the role type. */
const shared = {
  store: storeFlag(),
  storeFile: storeFileFlag(),
  group: groupFlag('shop'),
  env: envFlag(),
  utype: flag.string('type', { placeholder: 'TYPE', help: 'the role type: 1-128 characters without whitespace, e.g. billing', required: { example: 'billing' } }),
  connectTimeoutMs: connectTimeoutFlag('how long to wait for the store (and, for get, for its read)'),
  help: helpFlag(),
  ...tlsFlags('--store'),
} as const;

/** The flags of `roster primary run`. */
export const PRIMARY_RUN_FLAGS = defineFlags(`${NAME} run`, {
  ...shared,
  endpoint: flag.string('endpoint', { placeholder: 'ADDR', help: 'where this instance listens (1 to 1024 characters), published for get and resolvers' }),
  id: flag.string('id', {
    placeholder: 'ID',
    help: "this instance's id: 1-128 of A-Z a-z 0-9 . _ @ -; after a loss it starts over as ID-2, ID-3, ...",
    defaultText: 'a fresh UUID without dashes',
    fields: ['generateId'],
  }),
  intervalMs: intervalFlag('the heartbeat interval I in milliseconds', PRIMARY_TIMING.intervalMs),
  timeoutMs: timeoutFlag('the heartbeat timeout T in milliseconds, more than twice the interval', String(PRIMARY_TIMING.timeoutMs)),
  exitOnLoss: flag.boolean('exit-on-loss', {
    help: `exit with code ${ExitCode.lostPrimary} when this instance stops acting as primary (superseded, entry vanished, or no heartbeat for T - I), so that a supervisor restarts it; without it the instance starts over in-process under a new id`,
  }),
  json: jsonFlag(),
  verbose: verboseFlag(),
  logFormat: logFormatFlag(),
});

/** The flags of `roster primary get`. */
export const PRIMARY_GET_FLAGS = defineFlags(`${NAME} get`, {
  ...shared,
  timeoutMs: timeoutFlag("T: a heartbeat older than this (store time) is no primary; give the contenders' value", String(PRIMARY_TIMING.timeoutMs)),
  json: jsonFlag('print one JSON object instead of a line'),
});

const RUN = PRIMARY_RUN_FLAGS;
const GET = PRIMARY_GET_FLAGS;
const f = (key: keyof typeof RUN.flags): string => RUN.syntax(key);
const n = (key: keyof typeof RUN.flags): string => RUN.name(key);
const store = `[${f('store')} | ${f('storeFile')}] ${f('group')} ${f('env')} ${f('utype')}`;

const HELP = `Usage: roster primary run ${store} [options]
       roster primary get ${store} [${GET.name('timeoutMs')} MS] [${GET.name('json')}]

One primary per role type (@roster/primary): instances of a type contend through a
heartbeat table in the store, judged by the store's own clock; clients resolve the primary of
a type to the endpoint it published. See docs/primary.md.

  run   contend for the role type and print what happens: who the primary is, when this
        instance starts and stops acting as primary. Ctrl-C (SIGINT) or SIGTERM stop it
        gracefully: it stops acting, then releases its entry so that another takes over at once.
  get   print the current primary of the role type once: its id, endpoint and the age of its
        last heartbeat (store time), or "none".

${storeHelp(RUN, ['store', 'storeFile'])}

Required:
${RUN.helpLines(['group', 'env', 'utype'])}

Options of run:
${RUN.helpLines(['endpoint', 'id', 'intervalMs', 'timeoutMs', 'exitOnLoss', 'json', 'verbose', 'logFormat'])}

Options of get:
${GET.helpLines(['timeoutMs', 'json'])}

Both:
${RUN.helpLines(['connectTimeoutMs', 'help'])}

${tlsHeading()}
${RUN.helpLines(TLS_KEYS)}

Exit codes:
  0  run: stopped by SIGINT or SIGTERM (gracefully); get: a primary was found
  ${ExitCode.noPrimary}  get: the role type has no primary
  ${ExitCode.lostPrimary}  run --exit-on-loss: this instance stopped acting as primary
  2  bad arguments, an invalid configuration, or a store that cannot be reached
  1  an unexpected error; 130/143 a second SIGINT/SIGTERM cut the graceful stop short

Examples:
  roster primary run ${n('store')} redis://127.0.0.1:6379 ${n('group')} shop ${n('env')} dev ${n('utype')} billing \\
    ${n('endpoint')} 10.0.0.7:8080
  roster primary run ${n('store')} redis://127.0.0.1:6379 ${n('group')} shop ${n('env')} dev ${n('utype')} billing \\
    ${n('id')} "$HOSTNAME" ${n('intervalMs')} 500 ${n('timeoutMs')} 2500 ${n('exitOnLoss')} ${n('json')}
  roster primary get ${n('store')} postgres://roster@db.internal/app ${n('group')} shop ${n('env')} dev ${n('utype')} billing
`;

/** The options table of docs/cli.md for `roster primary`: both subcommands, a flag only one takes marked so. */
export function primaryFlagsMarkdown(): string {
  return flagsMarkdown([
    { table: RUN, label: 'run' },
    { table: GET, label: 'get' },
  ]);
}

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
        throw problem(NAME, `expected run or get (see \`${NAME} --help\`)`);
      default:
        throw problem(NAME, `unknown subcommand ${JSON.stringify(sub)}, expected run or get (see \`${NAME} --help\`)`);
    }
  },
};

async function run(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = RUN.parse(args, io.env);
  const { values } = parsed;
  const timing: Timing = {
    interval: { value: values.intervalMs, flag: RUN.name('intervalMs'), given: parsed.given('intervalMs') },
    timeout: { value: values.timeoutMs ?? PRIMARY_TIMING.timeoutMs, flag: RUN.name('timeoutMs'), given: parsed.given('timeoutMs') },
  };
  return runPrimary(
    {
      ...storeOptions(parsed, io, (error) => configProblem(parsed, error, timing)),
      ...(values.endpoint !== undefined && { endpoint: values.endpoint }),
      ...(values.id !== undefined && { id: values.id }),
      intervalMs: values.intervalMs,
      exitOnLoss: values.exitOnLoss,
      json: values.json,
      logFormat: values.logFormat,
      verbose: values.verbose,
    },
    io,
  );
}

async function get(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = GET.parse(args, io.env);
  // `get` has no interval: T alone matters to it, so no timing rule can break.
  return getPrimary({ ...storeOptions(parsed, io, (error) => configProblem(parsed, error)), json: parsed.values.json }, io);
}

/** What `run` and `get` read alike: the store, the namespace, the role type, T and TLS. */
function storeOptions(
  parsed: ParsedFlags<typeof RUN.flags> | ParsedFlags<typeof GET.flags>,
  io: CliIO,
  explain: (error: unknown) => unknown,
): PrimaryStoreOptions {
  const { values } = parsed;
  const store = requireStoreUrl(parsed.command, { url: values.store, source: parsed.source('store'), file: values.storeFile }, io.env);
  const tls = tlsOptions(parsed);
  return {
    store,
    group: values.group,
    env: values.env,
    utype: values.utype,
    ...(values.timeoutMs !== undefined && { timeoutMs: values.timeoutMs }),
    ...(values.connectTimeoutMs !== undefined && { connectTimeoutMs: values.connectTimeoutMs }),
    ...(tls && { tls }),
    configProblem: explain,
  };
}

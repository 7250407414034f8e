import { createCluster, ClusterLeftError, type Cluster, type ClusterOptions, type RebalanceUpdate } from '@roster/cluster';
import { randomUUID } from 'node:crypto';
import { Namespace, silentLogger, type KV, type Logger, type LogLevel } from '@roster/kv-adapter';
import { LevelLogger } from '@roster/kv-adapter/internal';
import { CliError, ExitCode } from '../CliError.js';
import { configProblem, NODE_TIMING, nodeTiming, type Timing } from '../internal/configProblems.js';
import { connectStore } from '../internal/connectStore.js';
import { defineFlags, flag, helpFlag, helpItem, type ParsedFlags } from '../internal/flags.js';
import { problem } from '../internal/problems.js';
import { knownSecrets, SecretScrubber } from '../internal/scrubSecrets.js';
import { storeFormsHelp } from '../internal/storeHelp.js';
import { resolveStoreUrl, STORE_PASSWORD_ENV, STORE_URL_ENV, type ResolvedStoreUrl } from '../internal/storeSource.js';
import { TLS_KEYS, tlsFlags, tlsHeading, tlsOptions } from '../internal/tlsOptions.js';
import { StopRequest } from '../internal/StopRequest.js';
import type { CliIO, Command, OutputStream } from './Command.js';

const NAME = 'cluster-test';

/** The flags of `cluster-test`: libcluster's one-letter flags, and Roster's additions. */
export const CLUSTER_TEST_FLAGS = defineFlags(NAME, {
  help: helpFlag({ preferShort: true }),
  verbose: flag.boolean('verbose', { short: 'v', preferShort: true, help: 'Be more verbose' }),
  group: flag.string('group', { short: 'k', preferShort: true, placeholder: 'GROUP', help: "Set the group (libcluster's cluster key) to GROUP", defaultText: 'cluster-test' }),
  env: flag.string('env', { short: 'e', preferShort: true, placeholder: 'ENV', help: 'Set the environment to ENV', defaultText: 'production' }),
  id: flag.string('id', {
    short: 'i',
    preferShort: true,
    placeholder: 'ID',
    help: "Set this instance's id (libcluster's instance identifier) to ID",
    defaultText: 'a fresh UUID',
  }),
  threads: flag.integer('threads', { short: 'n', preferShort: true, placeholder: 'COUNT', help: 'Set the number of threads to COUNT', defaultValue: 1 }),
  store: flag.string('store', {
    short: 'r',
    preferShort: true,
    placeholder: 'URL',
    env: STORE_URL_ENV,
    help: "Set the store (libcluster's registry) to URL: a store URL of one of the forms below",
    docs: '([forms](#store-urls))',
  }),
  storeFile: flag.string('store-file', { placeholder: 'PATH', help: 'Read the store URL from the file PATH (trimmed), e.g. a mounted secret' }),
  intervalMs: flag.integer('interval', { placeholder: 'MS', unit: 'milliseconds', help: "Roster's period I in milliseconds", defaultText: String(NODE_TIMING.intervalMs) }),
  timeoutMs: flag.integer('timeout', { placeholder: 'MS', unit: 'milliseconds', help: "Roster's timeout T in milliseconds", defaultText: '5 × --interval' }),
  ...tlsFlags('-r'),
  index: flag.integer('index', { short: 'I', preferShort: true, placeholder: 'INDEX', min: 0, help: 'Set this instance index to INDEX', defaultText: '0', fields: ['static.index'] }),
  total: flag.integer('total', {
    short: 'T',
    preferShort: true,
    placeholder: 'COUNT',
    help: 'Set the cluster total to COUNT',
    defaultText: 'INDEX + threads',
    fields: ['static.total'],
  }),
});

const F = CLUSTER_TEST_FLAGS;
const LAYOUT = { column: 28 };
const n = (key: keyof typeof F.flags): string => F.name(key);

const HELP = `Usage: cluster-test [OPTIONS]

OPTIONS are one or more of:
${F.helpLines(['help', 'verbose', 'group', 'env', 'id', 'threads'], LAYOUT)}
 Registry-based (dynamic) clustering:
${F.helpLines(['store', 'storeFile'], LAYOUT)}
${helpItem(STORE_PASSWORD_ENV, 'The password, for a store URL that has none', LAYOUT)}
${F.helpLines(['intervalMs', 'timeoutMs'], LAYOUT)}
 Static clustering:
${F.helpLines(['index', 'total'], LAYOUT)}

cluster-test joins the cluster, prints every re-balance, and sleeps until terminated; on Ctrl-C
(SIGINT) or SIGTERM it leaves the cluster and exits 0. Give ${n('store')} (or ${n('storeFile')}, or
${STORE_URL_ENV}), or ${n('index')} and/or ${n('total')}, not both; the store URL comes from ${n('store')}, else
${n('storeFile')}, else ${STORE_URL_ENV}.

${storeFormsHelp()}

${tlsHeading()}
${F.helpLines(TLS_KEYS, LAYOUT)}

Exit codes: 0 left after a signal; 2 bad arguments or configuration, or the store unreachable;
1 an unexpected error; 130/143 a second SIGINT/SIGTERM cut the leave short.

Examples:
  cluster-test ${n('verbose')} ${n('group')} crawler ${n('env')} dev ${n('store')} redis://127.0.0.1:6379
  cluster-test ${n('id')} node1 ${n('threads')} 2 ${n('store')} etcd://127.0.0.1:2379
  cluster-test ${n('threads')} 2 ${n('index')} 4 ${n('total')} 8
`;

/** `cluster-test`: libcluster's test program on `@roster/cluster`. */
export const clusterTestCommand: Command = {
  name: NAME,
  summary: 'join a cluster as libcluster’s cluster-test does and print every re-balance',
  help: HELP,
  run: clusterTest,
};

/**
 * Runs `cluster-test` with `args` (after the program name) and resolves to the exit code; never
 * rejects. A {@link CliError} becomes one line on stderr.
 */
export async function runClusterTest(args: readonly string[], io: CliIO): Promise<number> {
  try {
    return await clusterTest(args, io);
  } catch (error) {
    // The last safety net: no password of the command line or the environment in an error.
    const scrubber = new SecretScrubber(knownSecrets(args, io.env));
    if (error instanceof CliError) {
      io.stderr.write(scrubber.scrub(`${error.message}\n`));
      return error.exitCode;
    }
    io.stderr.write(scrubber.scrub(`${NAME}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`));
    return ExitCode.failure;
  }
}

async function clusterTest(args: readonly string[], io: CliIO): Promise<number> {
  const parsed = F.parse(args, io.env);
  const { values } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return ExitCode.ok;
  }
  const isStatic = values.index !== undefined || values.total !== undefined;
  // ROSTER_STORE_URL is the last resort: static clustering (-I/-T) ignores it.
  const storeGiven = parsed.source('store').kind === 'flag' || values.storeFile !== undefined;
  if (isStatic && storeGiven) {
    throw problem(NAME, `give either ${n('store')} URL (dynamic clustering) or ${n('index')}/${n('total')} (static clustering), not both`);
  }
  const source = isStatic
    ? undefined
    : resolveStoreUrl(NAME, { url: values.store, source: parsed.source('store'), file: values.storeFile, flag: n('store') }, io.env);
  if (!isStatic && source === undefined) {
    throw problem(
      NAME,
      `give ${n('store')} URL (dynamic clustering, e.g. ${n('store')} redis://127.0.0.1:6379; or ${n('storeFile')} PATH, or ${STORE_URL_ENV} in the environment) or ${n('index')} INDEX ${n('total')} COUNT (static clustering)`,
    );
  }
  const timing = nodeTiming(parsed, { interval: 'intervalMs', timeout: 'timeoutMs' });
  const explain = (error: unknown): unknown => configProblem(parsed, error, timing);
  const out = (line: string): void => void io.stdout.write(`${line}\n`);
  const logger = values.verbose ? new LibclusterLogger(io.stderr, new SecretScrubber(source?.secrets ?? [])) : silentLogger;
  const tls = isStatic ? undefined : tlsOptions(parsed);
  // With TLS the store is connected (and its ACL permissions probed) here, then handed over.
  let store: string | KV | undefined = source?.url;
  let owned: KV | undefined;
  if (tls !== undefined && source !== undefined) {
    let probeKey: string;
    try {
      probeKey = new Namespace(values.group ?? 'cluster-test', values.env ?? 'production').key(`probe/${randomUUID()}`);
    } catch (error) {
      throw explain(error);
    }
    owned = await connectStore({ command: NAME, url: source.url, where: source.where, tls, logger, probeKey, configProblem: explain });
    store = owned;
  }
  try {
    return await runCluster(parsed, { isStatic, store, source, logger, timing }, io, out);
  } finally {
    await owned?.close();
  }
}

interface ClusterSettings {
  readonly isStatic: boolean;
  readonly store: string | KV | undefined;
  readonly source: ResolvedStoreUrl | undefined;
  readonly logger: Logger;
  readonly timing: Timing;
}

async function runCluster(
  parsed: ParsedFlags<typeof F.flags>,
  { isStatic, store, source, logger, timing }: ClusterSettings,
  io: CliIO,
  out: (line: string) => void,
): Promise<number> {
  const { values } = parsed;
  const options: ClusterOptions = {
    group: values.group ?? 'cluster-test',
    env: values.env ?? 'production',
    threads: values.threads,
    ...(values.id !== undefined && { id: values.id }),
    ...(isStatic
      ? { static: { index: values.index ?? 0, total: values.total ?? (values.index ?? 0) + values.threads } }
      : {
          store: store!,
          ...(values.intervalMs !== undefined && { intervalMs: values.intervalMs }),
          ...(values.timeoutMs !== undefined && { timeoutMs: values.timeoutMs }),
        }),
    logger,
    onRebalance: (update) => printRebalance(out, update),
  };
  let cluster: Cluster;
  try {
    cluster = createCluster(options);
  } catch (error) {
    throw configProblem(parsed, error, isStatic ? undefined : timing);
  }
  return sleepUntilTerminated(cluster, io, out, source);
}

/** Joins, sleeps until the first SIGINT/SIGTERM, then leaves; a second signal exits at once. */
async function sleepUntilTerminated(cluster: Cluster, io: CliIO, out: (line: string) => void, source: ResolvedStoreUrl | undefined): Promise<number> {
  const stop = new StopRequest(io, () => out(`${NAME}: signal received, will terminate`));
  // Static mode runs no timer at all: without this the process would exit instead of sleeping.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  try {
    const joined = await cluster.join({ signal: stop.signal }).then(
      () => true,
      (error: unknown) => {
        if (stop.signal.aborted || ClusterLeftError.is(error)) return false;
        throw problem(NAME, `could not join cluster ${cluster.group}/${cluster.env}`, {
          detail: error instanceof Error ? error.message : String(error),
          ...(source && { where: `store URL from ${source.where}` }),
          cause: error,
        });
      },
    );
    if (joined) {
      out(`${NAME}: cluster joined; sleeping until terminated`);
      await stop.whenRequested();
    }
    out(`${NAME}: will now leave the cluster`);
    const forced = await Promise.race([cluster.leave().then(() => undefined), stop.forced]);
    if (forced !== undefined) {
      cluster.destroy();
      return forced;
    }
    out(`${NAME}: successfully left the cluster`);
    return ExitCode.ok;
  } finally {
    clearInterval(keepAlive);
    stop.dispose();
  }
}

/** Prints a re-balance as libcluster's cluster-test does. */
function printRebalance(out: (line: string) => void, update: RebalanceUpdate): void {
  out(`${NAME}: cluster has re-balanced:`);
  out(`   instance index:        ${update.index}`);
  out(`   instance thread count: ${update.threads}`);
  out(`   total thread count:    ${update.total}`);
}

const PRIORITY = { debug: 7, info: 5, warn: 4, error: 3 } as const;

/**
 * `-v`: log lines as libcluster prints them, `libcluster<PRIORITY>: message`, with syslog
 * priorities (7 debug, 5 notice, 4 warning, 3 error). An `instances` list (the re-balancing
 * listing, `* id [base]` for this instance) is printed one line per instance. The cluster's own
 * messages already say everything, so only the Roster node's entries show their fields.
 */
class LibclusterLogger extends LevelLogger {
  readonly #sink: OutputStream;
  readonly #scrubber: SecretScrubber;

  constructor(sink: OutputStream, scrubber: SecretScrubber) {
    super();
    this.#sink = sink;
    this.#scrubber = scrubber;
  }

  protected log(level: LogLevel, fields: object, message = ''): void {
    const prefix = `libcluster<${PRIORITY[level]}>: `;
    const entries = fields as Record<string, unknown>;
    const listing = Array.isArray(entries.instances) ? (entries.instances as unknown[]).map(String) : undefined;
    const own = message.startsWith('cluster: ');
    const shown = Object.entries(entries).filter(([key, value]) => value !== undefined && (key === 'err' || !own));
    const tail = shown.map(([key, value]) => ` ${key}=${formatValue(value)}`).join('');
    const lines = [`${prefix}${message}${listing ? ':' : ''}${tail}`, ...(listing ?? []).map((line) => `${prefix}${line}`)];
    this.#sink.write(this.#scrubber.scrub(`${lines.join('\n')}\n`));
  }
}

function formatValue(value: unknown): string {
  if (value instanceof Error) return JSON.stringify(value.message);
  if (typeof value === 'string') return /^[\w.:/@<>-]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? String(value);
  } catch {
    return String(value);
  }
}

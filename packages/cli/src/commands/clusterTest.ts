import { createCluster, ClusterLeftError, type Cluster, type ClusterOptions, type RebalanceUpdate } from '@roster/cluster';
import { randomUUID } from 'node:crypto';
import { ConfigError, LevelLogger, Namespace, silentLogger, type KV, type Logger, type LogLevel } from '@roster/kv-adapter';
import { CliError, ExitCode } from '../CliError.js';
import { connectStore } from '../internal/connectStore.js';
import { integerOption, parseOptions } from '../internal/parseOptions.js';
import { SecretScrubber } from '../internal/scrubSecrets.js';
import { resolveStoreUrl, STORE_PASSWORD_ENV, STORE_URL_ENV } from '../internal/storeSource.js';
import { TLS_FLAGS, tlsHelp, tlsOptions } from '../internal/tlsOptions.js';
import { StopRequest } from '../internal/StopRequest.js';
import type { CliIO, Command, OutputStream } from './Command.js';

const NAME = 'cluster-test';

const HELP = `Usage: cluster-test [OPTIONS]

OPTIONS are one or more of:
  -h                        Print this message and exit
  -v                        Be more verbose
  -k KEY                    Set the cluster key to KEY [default: cluster-test]
  -e ENV                    Set the cluster environment to ENV [default: production]
  -i ID                     Set the instance identifier to ID [default: a fresh UUID]
  -n COUNT                  Set the number of threads to COUNT [default: 1]
 Registry-based (dynamic) clustering:
  -r URI                    Set the cluster registry URI: a store URL such as
                            redis://127.0.0.1:6379, host:port,host:port,... for Redis Cluster,
                            redis+sentinel://host:26379,.../MASTER, etcd://host:2379/prefix or
                            postgres://user:pass@host:5432/db (docs/stores.md)
  --store-file PATH         Read the registry URI from the file PATH (trimmed), e.g. a mounted
                            secret; without -r and --store-file, ROSTER_STORE_URL gives it, and
                            ROSTER_STORE_PASSWORD the password of a URI that has none
  --interval MS             Roster's period I in milliseconds [default: 1000]
  --timeout MS              Roster's timeout T in milliseconds [default: 5 x interval]
  --tls-ca, --tls-cert, --tls-key, --tls-server-name: TLS for a rediss:// registry (below)
 Static clustering:
  -I INDEX                  Set this instance index to INDEX [default: 0]
  -T COUNT                  Set the cluster total to COUNT [default: INDEX + threads]

cluster-test joins the cluster, prints every re-balance, and sleeps until terminated; on Ctrl-C
(SIGINT) or SIGTERM it leaves the cluster and exits 0. Give -r (or --store-file, or
ROSTER_STORE_URL), or -I and/or -T, not both.

${tlsHelp('-r')}

Exit codes: 0 left after a signal; 2 bad arguments or configuration, or the registry unreachable;
1 an unexpected error; 130/143 a second SIGINT/SIGTERM cut the leave short.

Examples:
  cluster-test -v -k mycluster -e dev -r redis://127.0.0.1:6379
  cluster-test -i node1 -n 2 -r redis://127.0.0.1:6379
  cluster-test -n 2 -I 4 -T 8
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
    // No password in an error either: a URL's, or the one the environment gave.
    const scrubber = new SecretScrubber([io.env[STORE_PASSWORD_ENV] ?? '']);
    if (error instanceof CliError) {
      io.stderr.write(scrubber.scrub(`${error.message}\n`));
      return error.exitCode;
    }
    io.stderr.write(scrubber.scrub(`${NAME}: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`));
    return ExitCode.failure;
  }
}

/** The options `cluster-test` accepts (`parseArgs` specs). */
export const CLUSTER_TEST_OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean', short: 'v' },
  key: { type: 'string', short: 'k' },
  env: { type: 'string', short: 'e' },
  instance: { type: 'string', short: 'i' },
  threads: { type: 'string', short: 'n' },
  registry: { type: 'string', short: 'r' },
  'store-file': { type: 'string' },
  index: { type: 'string', short: 'I' },
  total: { type: 'string', short: 'T' },
  interval: { type: 'string' },
  timeout: { type: 'string' },
  ...TLS_FLAGS,
} as const;

async function clusterTest(args: readonly string[], io: CliIO): Promise<number> {
  const { values } = parseOptions(NAME, args, CLUSTER_TEST_OPTIONS);
  if (values.help) {
    io.stdout.write(HELP);
    return ExitCode.ok;
  }
  const threads = integerOption(NAME, '-n', values.threads) ?? 1;
  const index = integerOption(NAME, '-I', values.index, { min: 0 });
  const total = integerOption(NAME, '-T', values.total);
  const intervalMs = integerOption(NAME, '--interval', values.interval, { unit: 'milliseconds' });
  const timeoutMs = integerOption(NAME, '--timeout', values.timeout, { unit: 'milliseconds' });
  const isStatic = index !== undefined || total !== undefined;
  if (isStatic && (values.registry !== undefined || values['store-file'] !== undefined)) {
    throw new CliError(`${NAME}: give either -r URI (dynamic clustering) or -I/-T (static clustering), not both`);
  }
  // ROSTER_STORE_URL is the last resort: static clustering (-I/-T) ignores it.
  const source = isStatic ? undefined : resolveStoreUrl(NAME, { url: values.registry, file: values['store-file'], flag: '-r' }, io.env);
  if (!isStatic && source === undefined) {
    throw new CliError(
      `${NAME}: give -r URI (dynamic clustering, e.g. -r redis://127.0.0.1:6379; or --store-file PATH, or ${STORE_URL_ENV} in the environment) or -I INDEX -T COUNT (static clustering)`,
    );
  }
  const out = (line: string): void => void io.stdout.write(`${line}\n`);
  const logger = values.verbose ? new LibclusterLogger(io.stderr, new SecretScrubber(source?.secrets ?? [])) : silentLogger;
  const tls = isStatic ? undefined : tlsOptions(NAME, values, io.env);
  // With TLS the registry is connected (and its ACL permissions probed) here, then handed over.
  let registry: string | KV | undefined = source?.url;
  let owned: KV | undefined;
  if (tls !== undefined) {
    let probeKey: string;
    try {
      probeKey = new Namespace(values.key ?? 'cluster-test', values.env ?? 'production').key(`probe/${randomUUID()}`);
    } catch (error) {
      if (ConfigError.is(error)) throw new CliError(`${NAME}: ${error.message}`, { cause: error });
      throw error;
    }
    owned = await connectStore({ command: NAME, url: source!.url, tls, logger, probeKey });
    registry = owned;
  }
  try {
    return await runCluster(values, { threads, index, total, intervalMs, timeoutMs, isStatic, registry, logger }, io, out);
  } finally {
    await owned?.close();
  }
}

interface ClusterSettings {
  readonly threads: number;
  readonly index: number | undefined;
  readonly total: number | undefined;
  readonly intervalMs: number | undefined;
  readonly timeoutMs: number | undefined;
  readonly isStatic: boolean;
  readonly registry: string | KV | undefined;
  readonly logger: Logger;
}

async function runCluster(
  values: { key?: string | undefined; env?: string | undefined; instance?: string | undefined },
  { threads, index, total, intervalMs, timeoutMs, isStatic, registry, logger }: ClusterSettings,
  io: CliIO,
  out: (line: string) => void,
): Promise<number> {
  const options: ClusterOptions = {
    key: values.key ?? 'cluster-test',
    env: values.env ?? 'production',
    threads,
    ...(values.instance !== undefined && { instanceId: values.instance }),
    ...(isStatic
      ? { static: { index: index ?? 0, total: total ?? (index ?? 0) + threads } }
      : { registry: registry!, ...(intervalMs !== undefined && { intervalMs }), ...(timeoutMs !== undefined && { timeoutMs }) }),
    logger,
    onRebalance: (update) => printRebalance(out, update),
  };
  let cluster: Cluster;
  try {
    cluster = createCluster(options);
  } catch (error) {
    if (ConfigError.is(error)) throw new CliError(`${NAME}: ${error.message}`, { cause: error });
    throw error;
  }
  return sleepUntilTerminated(cluster, io, out);
}

/** Joins, sleeps until the first SIGINT/SIGTERM, then leaves; a second signal exits at once. */
async function sleepUntilTerminated(cluster: Cluster, io: CliIO, out: (line: string) => void): Promise<number> {
  const stop = new StopRequest(io, () => out(`${NAME}: signal received, will terminate`));
  // Static mode runs no timer at all: without this the process would exit instead of sleeping.
  const keepAlive = setInterval(() => undefined, 2 ** 30);
  try {
    const joined = await cluster.join({ signal: stop.signal }).then(
      () => true,
      (error: unknown) => {
        if (stop.signal.aborted || ClusterLeftError.is(error)) return false;
        throw new CliError(`${NAME}: could not join cluster ${cluster.key}/${cluster.env}: ${error instanceof Error ? error.message : String(error)}`, {
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

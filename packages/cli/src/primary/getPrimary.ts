import { MemoryKV, Namespace, RosterError, silentLogger, type KV } from '@roster/kv-adapter';
import { checkUtype, HeartbeatTable, type EntryState } from '@roster/primary';
import type { CliIO } from '../commands/Command.js';
import { ExitCode } from '../CliError.js';
import { problem, untagged } from '../internal/problems.js';
import { connectStore } from '../internal/connectStore.js';
import { configProblem, type PrimaryStoreOptions } from './primaryConfig.js';
import { seconds } from './primaryEvents.js';

/** What `roster primary get` was asked to do, parsed from its arguments. */
export interface PrimaryGetOptions extends PrimaryStoreOptions {
  /** One JSON object on stdout. @defaultValue false */
  readonly json?: boolean;
}

/** The entry a `get` found expired: the last primary, no longer one. */
export interface ExpiredPrimary {
  /** Its id. */
  readonly id: string;
  readonly endpoint: string | null;
  /** Store time − its last heartbeat, in ms. */
  readonly ageMs: number;
  /** True when its holder gave it up on a graceful stop (rather than stopping its heartbeats). */
  readonly released: boolean;
}

/**
 * What `roster primary get --json` prints: one JSON object. `primary`, `endpoint` and `ageMs`
 * describe the live primary and are `null` when there is none; `state` says what the table holds.
 */
export interface PrimaryGetResult {
  readonly utype: string;
  /** `live` (a primary), `empty` (never written), `expired` (older than T, or released) or `corrupt`. */
  readonly state: EntryState['state'];
  /** The primary's id, or `null`. */
  readonly primary: string | null;
  /** Where it listens, or `null` (no primary, or none published). */
  readonly endpoint: string | null;
  /**
   * Store time − its last heartbeat, in ms (at least 0: the store's time and the entry are read in
   * parallel, so a heartbeat written in between would otherwise look a few ms into the future),
   * or `null`.
   */
  readonly ageMs: number | null;
  /** The store's time of the read, in ms since the epoch. */
  readonly storeTime: number;
  /** With `state: "expired"`: the entry that expired. */
  readonly last?: ExpiredPrimary;
  /** With `state: "corrupt"`: why the entry was not understood. */
  readonly reason?: string;
}

const COMMAND = 'roster primary get';

/**
 * Reads the primary of a role type once, as the table's readers judge it (store time − last
 * heartbeat ≤ T), prints it and resolves to 0, or to {@link ExitCode.noPrimary} when there is none.
 *
 * @throws {@link CliError} (exit code 2) for an invalid configuration or a store that cannot be
 *   reached or read.
 */
export async function getPrimary(options: PrimaryGetOptions, io: CliIO): Promise<number> {
  const namespace = checkConfig(options);
  const kv = await connectStore({
    command: COMMAND,
    url: options.store.url,
    where: options.store.where,
    ...(options.tls && { tls: options.tls }),
    ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
    logger: silentLogger,
    ...(options.configProblem && { configProblem: options.configProblem }),
  });
  if (kv === undefined) return ExitCode.ok; // only with a signal, which `get` does not pass
  try {
    const state = await read(tableOn(kv, namespace, options), options);
    const result = toResult(options.utype, state);
    io.stdout.write(`${options.json ? JSON.stringify(result) : describeResult(result)}\n`);
    return result.primary === null ? ExitCode.noPrimary : ExitCode.ok;
  } finally {
    await kv.close();
  }
}

function tableOn(kv: KV, namespace: Namespace, options: PrimaryGetOptions): HeartbeatTable {
  return new HeartbeatTable({ store: kv, namespace, ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }) });
}

/** Validates every option before any connection, so that a bad one fails at once. */
function checkConfig(options: PrimaryGetOptions): Namespace {
  try {
    const namespace = new Namespace(options.group, options.env);
    checkUtype(options.utype);
    tableOn(new MemoryKV(), namespace, options);
    return namespace;
  } catch (error) {
    throw configProblem(COMMAND, error, options);
  }
}

/** One read of the entry, bounded by the connect timeout. */
async function read(table: HeartbeatTable, options: PrimaryGetOptions): Promise<EntryState> {
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  try {
    return await table.inspect(options.utype, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const explained = configProblem(COMMAND, error, options);
    if (explained !== error) throw explained;
    if ((error as { name?: string }).name === 'TimeoutError') {
      throw problem(COMMAND, 'cannot read the store', { detail: `no answer within ${timeoutMs} ms`, where: `store URL from ${options.store.where}`, cause: error });
    }
    if (RosterError.is(error)) {
      throw problem(COMMAND, 'cannot read the store', { detail: untagged(error, 'kv: store unavailable: '), where: `store URL from ${options.store.where}`, cause: error });
    }
    throw error;
  }
}

/** The `--json` object for what `inspect` found. */
export function toResult(utype: string, found: EntryState): PrimaryGetResult {
  const none = { utype, state: found.state, primary: null, endpoint: null, ageMs: null, storeTime: found.storeTime } as const;
  switch (found.state) {
    case 'live':
      return { ...none, primary: found.entry.id, endpoint: found.entry.endpoint ?? null, ageMs: Math.max(0, found.ageMs) };
    case 'expired': {
      const { id, endpoint, timestamp } = found.entry;
      return { ...none, last: { id, endpoint: endpoint ?? null, ageMs: found.ageMs, released: timestamp === 0 } };
    }
    case 'corrupt':
      return { ...none, reason: found.reason };
    case 'empty':
      return none;
  }
}

/**
 * The line `roster primary get` prints without `--json`:
 * `primary of billing: 3b24… at 10.0.0.7:8080 (heartbeat 412 ms ago)` or `primary of billing: none`.
 */
export function describeResult(result: PrimaryGetResult): string {
  const head = `primary of ${result.utype}:`;
  if (result.primary !== null) {
    return `${head} ${result.primary}${result.endpoint === null ? '' : ` at ${result.endpoint}`} (heartbeat ${seconds(result.ageMs ?? 0)} ago)`;
  }
  const last = result.last;
  if (last !== undefined) {
    const who = `${last.id}${last.endpoint === null ? '' : ` at ${last.endpoint}`}`;
    return `${head} none (the last one, ${who}, ${last.released ? 'released the role' : `last heartbeat ${seconds(last.ageMs)} ago`})`;
  }
  if (result.reason !== undefined) return `${head} none (the entry is corrupt: ${result.reason})`;
  return `${head} none`;
}

import type { ConnectionOptions } from 'node:tls';
import { ConfigError, RosterError } from '@roster/kv-adapter';
import { problem } from '../internal/problems.js';
import type { ResolvedStoreUrl } from '../internal/storeSource.js';

/** What both `roster primary run` and `roster primary get` are given. */
export interface PrimaryStoreOptions {
  /**
   * The store: its URL (checked), its display form (the only one any text shows), where it came
   * from and the passwords every log line hides.
   */
  readonly store: ResolvedStoreUrl;
  /** The group (`--group`): the first part of the table's namespace. */
  readonly group: string;
  /** The environment (`--env`): the second part of the namespace. */
  readonly env: string;
  /** The role type (`--type`). */
  readonly utype: string;
  /** T, in ms. @defaultValue 5000 */
  readonly timeoutMs?: number;
  /** How long to wait for the store at start. @defaultValue 5000 */
  readonly connectTimeoutMs?: number;
  /** TLS options for the store, from the TLS flags. */
  readonly tls?: ConnectionOptions;
  /**
   * Turns a `ConfigError` of `@roster/primary` into the command's one line, in the words of its
   * flags (see `configProblem` in internal/configProblems.ts). @defaultValue the error unchanged
   */
  readonly configProblem?: (error: unknown) => unknown;
}

/**
 * A `ConfigError` as the command's one line (through `options.configProblem`: `roster primary run:
 * invalid --type: Expected …`); a store without compare-and-set or a clock as one line too;
 * anything else unchanged.
 */
export function configProblem(command: string, error: unknown, options: Pick<PrimaryStoreOptions, 'configProblem' | 'store'>): unknown {
  if (ConfigError.is(error)) return options.configProblem?.(error) ?? error;
  if (RosterError.is(error, 'KV_UNSUPPORTED')) {
    return problem(command, 'the store cannot hold a heartbeat table', { detail: error instanceof Error ? error.message : String(error), where: `store URL from ${options.store.where}`, cause: error });
  }
  return error;
}

/**
 * The contender's `generateId` for `--id ID`: `id` first, then `id-2`, `id-3`, … each time the
 * contender starts over after a loss, so that no two of its incarnations share an id
 * (docs/primary.md: "starting over uses a new id"). Without `--id` the contender's default makes
 * a fresh UUID each time.
 */
export function idGenerator(id: string): () => string {
  let incarnation = 0;
  return () => (++incarnation === 1 ? id : `${id}-${incarnation}`);
}

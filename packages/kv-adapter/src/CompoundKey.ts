import { ConfigError, KeyUnavailableError, RosterError, StoreUnavailableError, ValueTooLargeError } from './errors.js';
import type { Clock } from './clock/Clock.js';
import type { KV } from './KV.js';
import { withDeadline } from './util/deadline.js';

/** Options of {@link CompoundKey}. */
export interface CompoundKeyOptions {
  /**
   * How many nonces the key may use: writers cycle through `0 … window-1`, readers scan them all.
   * @defaultValue 4
   */
  readonly window?: number;
  /** The nonce to start at. @defaultValue 0 */
  readonly nonce?: number;
  /**
   * Whether an operation on this key that passed its deadline counts, now, as the key's failure
   * (see {@link CompoundKey.failedOn}): a hung shard shows itself so, and a writer moves off it.
   * A node whose store answers slowly as a whole (its mean round trip above half the deadline) says no:
   * every nonce is as slow there, and a writer that moved would only leave copies behind for
   * readers to scan. A key that reports itself unavailable moves its writer whatever this says.
   * @defaultValue always true
   */
  readonly timeoutsMove?: () => boolean;
}

/** The default number of nonces a compound key cycles through. */
export const DEFAULT_NONCE_WINDOW = 4;

/**
 * A compound key: the simple key `base` plus a space and a nonce, `"<base> <nonce>"`.
 * The nonce starts at 0; when the current key becomes unavailable the writer moves to the next
 * nonce ({@link advance}), wrapping around within the window so that a key that heals can be
 * used again.
 *
 * **How a reader finds a writer who moved.** The writer only ever moves within the window
 * `0 … window-1`, so a reader reads every nonce of the window ({@link readWindow}) and picks the
 * value it wants by its content: the leader broadcast by (Era, Nonce, Version), a PING by its
 * sequence number. Unavailable nonces are skipped; stale values left behind at an old nonce lose
 * to the fresher one by that content order.
 *
 * @example
 * ```ts
 * const leader = new CompoundKey('roster/app/prod/leader');
 * leader.current;   // 'roster/app/prod/leader 0'
 * leader.advance(); // 1
 * leader.current;   // 'roster/app/prod/leader 1'
 * ```
 */
export class CompoundKey {
  /** The simple key. */
  readonly base: string;
  /** The number of nonces in use. */
  readonly window: number;
  #nonce: number;
  readonly #timeoutsMove: () => boolean;

  constructor(base: string, options: CompoundKeyOptions = {}) {
    if (typeof base !== 'string' || base.length === 0) throw new ConfigError('base', base, 'Expected a non-empty base key');
    const window = options.window ?? DEFAULT_NONCE_WINDOW;
    if (!Number.isInteger(window) || window < 1 || window > 1024) {
      throw new ConfigError('window', window, 'Expected `window` to be an integer from 1 to 1024');
    }
    const nonce = options.nonce ?? 0;
    if (!Number.isInteger(nonce) || nonce < 0 || nonce >= window) {
      throw new ConfigError('nonce', nonce, `Expected \`nonce\` to be an integer from 0 to ${window - 1}`);
    }
    this.base = base;
    this.window = window;
    this.#nonce = nonce;
    this.#timeoutsMove = options.timeoutsMove ?? (() => true);
  }

  /** The nonce writers use now. */
  get nonce(): number {
    return this.#nonce;
  }

  /** The key writers use now: `"<base> <nonce>"`. */
  get current(): string {
    return this.at(this.#nonce);
  }

  /** The key at `nonce`. */
  at(nonce: number): string {
    return `${this.base} ${nonce}`;
  }

  /** Every key of the window, nonce 0 first. */
  keys(): string[] {
    return Array.from({ length: this.window }, (_, n) => this.at(n));
  }

  /**
   * Whether `error`, from an operation on this key, is the key's failure, on which a writer moves
   * to the next nonce: {@link isKeyFailure}, unless the writer {@link holdsOn} it.
   */
  failedOn(error: unknown): boolean {
    return isKeyFailure(error) && !this.holdsOn(error);
  }

  /**
   * Whether `error` is a deadline that passed while timeouts do not move writers
   * ({@link CompoundKeyOptions.timeoutsMove}: the store is slow as a whole), or one that passed
   * on an operation that waited for a connection of a busy pool (`StoreUnavailableError.queued`:
   * never sent, or sent late): the writer stays at its nonce and gives up this attempt, whether
   * the operation was a write or the read a write was to be based on.
   */
  holdsOn(error: unknown): boolean {
    return StoreUnavailableError.is(error) && error.timedOut && (queuedTimeout(error) || !this.#timeoutsMove());
  }

  /** Moves to the next nonce (wrapping within the window) and returns it. */
  advance(): number {
    this.#nonce = (this.#nonce + 1) % this.window;
    return this.#nonce;
  }

  /** Moves to `nonce`. */
  moveTo(nonce: number): void {
    if (!Number.isInteger(nonce) || nonce < 0 || nonce >= this.window) {
      throw new ConfigError('nonce', nonce, `Expected \`nonce\` to be an integer from 0 to ${this.window - 1}`);
    }
    this.#nonce = nonce;
  }

  /** Splits a compound key into its base and nonce, or returns `undefined` when it is not one. */
  static parse(key: string): { base: string; nonce: number } | undefined {
    const i = key.lastIndexOf(' ');
    if (i <= 0) return undefined;
    const tail = key.slice(i + 1);
    if (!/^(0|[1-9]\d{0,8})$/.test(tail)) return undefined;
    return { base: key.slice(0, i), nonce: Number(tail) };
  }
}

/** One nonce's outcome in {@link readWindow}. */
export type WindowSlot =
  | { readonly nonce: number; readonly ok: true; readonly value: string | null }
  | { readonly nonce: number; readonly ok: false; readonly error: unknown };

/** Options of {@link readWindow}. */
export interface ReadWindowOptions {
  /** Abandons every read; each slot then fails with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * Bounds each nonce's read on its own: a read still pending after `ms` on `clock` fails that
   * slot alone (a hung shard makes its nonce unavailable, never the whole window).
   */
  readonly deadline?: { readonly clock: Clock; readonly ms: number };
}

/**
 * Reads every key of `key`'s window in parallel. Each slot says either what is there (`null` for
 * nothing) or why it could not be read; one unavailable or hung nonce never hides the others.
 */
export async function readWindow(kv: KV, key: CompoundKey, options: ReadWindowOptions = {}): Promise<WindowSlot[]> {
  const { signal, deadline } = options;
  const keys = key.keys();
  return Promise.all(
    keys.map(async (k, nonce): Promise<WindowSlot> => {
      try {
        const value = deadline
          ? await withDeadline(deadline.clock, deadline.ms, `get ${k}`, (bounded) => kv.get(k, { signal: bounded }), signal)
          : await kv.get(k, signal && { signal });
        return { nonce, ok: true, value };
      } catch (error) {
        return { nonce, ok: false, error };
      }
    }),
  );
}

/**
 * True when `error` says one key could not be used, rather than the store: a
 * {@link KeyUnavailableError}, a deadline that passed on an operation on that one key
 * (`StoreUnavailableError` with `timedOut`), as a hung shard shows itself, or a value over the
 * size limit at that key (`ValueTooLargeError`: a stray writer left a huge value there, which
 * cannot be read nor compared). A writer moves on to the next nonce for any of them. Not a
 * deadline that passed on an operation that waited for a connection of a busy pool (`queued`):
 * that is the client's own queue, whatever the key.
 */
export function isKeyFailure(error: unknown): boolean {
  return KeyUnavailableError.is(error) || ValueTooLargeError.is(error) || (StoreUnavailableError.is(error) && error.timedOut && !queuedTimeout(error));
}

/** Whether `error` is a timeout of an operation that waited for a connection of a busy pool (`StoreUnavailableError.queued`). */
function queuedTimeout(error: StoreUnavailableError): boolean {
  return error.queued === true;
}

/**
 * Runs `op` on the current key of `key`; when it rejects with {@link KeyUnavailableError},
 * moves to the next nonce and tries again, at most once per nonce of the window. A deadline that
 * passed (`StoreUnavailableError` with `timedOut`) counts as that key's failure too, as a hung
 * shard shows itself, unless the previous nonce timed out as well (two in a row is the store),
 * the key says timeouts do not move its writers now ({@link CompoundKeyOptions.timeoutsMove}), or
 * the operation waited for a connection of a busy pool (`queued`: {@link CompoundKey.holdsOn}):
 * then the error is rethrown. Any other error is rethrown at once. Resolves with the result and
 * the nonce it succeeded at.
 *
 * @example
 * ```ts
 * await writeMoving(join, (k) => kv.append(k, ' node7'));
 * ```
 */
export async function writeMoving<T>(key: CompoundKey, op: (key: string) => Promise<T>): Promise<{ result: T; nonce: number }> {
  let last: unknown;
  let lastTimedOut = false;
  for (let attempt = 0; attempt < key.window; attempt++) {
    try {
      return { result: await op(key.current), nonce: key.nonce };
    } catch (error) {
      const timedOut = StoreUnavailableError.is(error) && error.timedOut;
      if (!KeyUnavailableError.is(error) && !(timedOut && !lastTimedOut && key.failedOn(error))) throw error;
      lastTimedOut = timedOut;
      last = error;
      key.advance();
    }
  }
  throw RosterError.is(last) ? last : new KeyUnavailableError(key.current, { cause: last });
}

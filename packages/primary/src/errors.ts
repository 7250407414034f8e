import { RosterError, UnsupportedOperationError, type KV } from '@roster/kv-adapter';

/** Why a contender stopped acting as primary. */
export type StopReason =
  /** The check returned another instance: someone else holds the role type. */
  | 'superseded'
  /** The check returned nothing: the entry is empty, expired or corrupt. */
  | 'vanished'
  /** No successful heartbeat and check for T − I (local time) since the last one. */
  | 'deadline'
  /** `stop()` was called, or the contender's signal aborted. */
  | 'stopped';

/**
 * The reason the primary's `AbortSignal` carries when the contender stops acting as primary.
 * Code `PRIMARY_LOST`.
 */
export class PrimaryLostError extends RosterError {
  /** Why the contender stopped acting. */
  readonly reason: StopReason;
  /** The role type it stopped acting for. */
  readonly utype: string;
  constructor(utype: string, reason: StopReason) {
    super('PRIMARY_LOST', `primary: stopped acting as primary of ${JSON.stringify(utype)}: ${reason}`);
    this.utype = utype;
    this.reason = reason;
  }
  /** True when `error` is a {@link PrimaryLostError} from any copy of this package. */
  static override is(error: unknown): error is PrimaryLostError {
    return RosterError.is(error, 'PRIMARY_LOST');
  }
}

/**
 * Throws {@link UnsupportedOperationError} (code `KV_UNSUPPORTED`) unless `kv` declares both
 * capabilities the heartbeat table needs: an atomic `compareAndSet` and the store's own clock.
 */
export function requireCapabilities(kv: KV): void {
  for (const capability of ['compareAndSet', 'time'] as const) {
    if (!kv.capabilities[capability]) {
      const what = capability === 'time' ? 'a clock of its own (time), which @roster/primary stamps every heartbeat with' : 'an atomic `compareAndSet`, which @roster/primary requires';
      throw new UnsupportedOperationError(what, kv.name);
    }
  }
}

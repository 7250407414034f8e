import { AbortError, type Clock } from '@roster/kv-adapter';

/** A bounded signal: see {@link timeoutSignal}. */
export interface TimeoutSignal {
  readonly signal: AbortSignal;
  /** Aborts now (with an `AbortError` unless a reason is given). */
  abort(reason?: unknown): void;
  /** Cancels the timer and detaches from the parent. */
  dispose(): void;
}

/** A signal that aborts after `ms` on `clock`, when `parent` aborts, or on {@link TimeoutSignal.abort}. */
export function timeoutSignal(clock: Clock, ms: number, parent?: AbortSignal): TimeoutSignal {
  const controller = new AbortController();
  const onParentAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  const timer = clock.setTimer(() => controller.abort(new AbortError()), ms);
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason ?? new AbortError()),
    dispose: () => {
      timer.cancel();
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}

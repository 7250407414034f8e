import type { Clock, Timer } from '@roster/kv-adapter';
import type { LifoGate } from '@roster/kv-adapter/internal';
import type { FaultHandle, FaultKind, KVOperation, LatencyMode } from './FaultOptions.js';

/** What a fault does, by kind. */
export type FaultEffect =
  | { readonly kind: 'keyUnavailable'; readonly stallMs: number; readonly hang?: boolean }
  | { readonly kind: 'storeOutage'; readonly stallMs: number }
  | { readonly kind: 'failure'; readonly probability: number; readonly after: boolean }
  | { readonly kind: 'latency'; readonly minMs: number; readonly maxMs: number; readonly mode: LatencyMode }
  | { readonly kind: 'capacity'; readonly serviceMs: number; readonly maxQueueMs: number; readonly queue: { busyUntil: number } }
  | { readonly kind: 'connections'; readonly gate: LifoGate; readonly serviceMs: number; readonly maxWaitMs: number };

/** Where a fault applies. */
export interface FaultTarget {
  readonly node: string | undefined;
  /** Fault active while `clock.now() < until`. */
  readonly until: number;
  /** Only keys it accepts; `time()` (no key) never matches a key-limited fault. */
  readonly keys: ((key: string) => boolean) | undefined;
  readonly ops: ReadonlySet<KVOperation> | undefined;
}

/** An injected fault: its effect, where it applies, and its life. */
export class Fault implements FaultHandle {
  readonly id: number;
  readonly effect: FaultEffect;
  readonly #target: FaultTarget;
  readonly #clock: Clock;
  readonly #onHit: (kind: FaultKind) => void;
  #healed = false;
  #hits = 0;

  constructor(id: number, effect: FaultEffect, target: FaultTarget, clock: Clock, onHit: (kind: FaultKind) => void) {
    this.id = id;
    this.effect = effect;
    this.#target = target;
    this.#clock = clock;
    this.#onHit = onHit;
  }

  get kind(): FaultKind {
    return this.effect.kind;
  }

  get node(): string | undefined {
    return this.#target.node;
  }

  get active(): boolean {
    return !this.#healed && this.#clock.now() < this.#target.until;
  }

  get hits(): number {
    return this.#hits;
  }

  /** How long until the fault ends by itself (0 once over). */
  get remainingMs(): number {
    return this.active ? Math.max(0, this.#target.until - this.#clock.now()) : 0;
  }

  heal(): void {
    this.#healed = true;
  }

  /** True when this fault, still active, covers `op` on `key` through a view of `node`. */
  covers(node: string | undefined, op: KVOperation, key: string | undefined): boolean {
    const t = this.#target;
    if (!this.active) return false;
    if (t.node !== undefined && t.node !== node) return false;
    if (t.ops !== undefined && !t.ops.has(op)) return false;
    if (t.keys !== undefined) return key !== undefined && t.keys(key);
    return true;
  }

  /** Counts one operation this fault affected. */
  hit(): void {
    this.#hits++;
    this.#onHit(this.effect.kind);
  }

  /** `kind#id`, as operation records name it. */
  toString(): string {
    return `${this.kind}#${this.id}`;
  }
}

/** An action scheduled by `FaultInjector.at`. */
export class ScheduledAction implements FaultHandle {
  readonly id: number;
  readonly kind = 'scheduled' as const;
  readonly node: string | undefined = undefined;
  timer: Timer | undefined;
  #pending = true;
  #result: FaultHandle | undefined;

  constructor(id: number) {
    this.id = id;
  }

  get active(): boolean {
    return this.#pending || (this.#result?.active ?? false);
  }

  get hits(): number {
    return this.#result?.hits ?? 0;
  }

  /** Marks the action as run, keeping the fault it returned (if any) so that heal() reaches it. */
  ran(result: unknown): void {
    this.#pending = false;
    if (isHandle(result)) this.#result = result;
  }

  heal(): void {
    this.#pending = false;
    this.timer?.cancel();
    this.#result?.heal();
  }
}

function isHandle(value: unknown): value is FaultHandle {
  return typeof value === 'object' && value !== null && typeof (value as FaultHandle).heal === 'function';
}

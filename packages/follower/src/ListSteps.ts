import type { BroadcastHeader, Broadcast } from './broadcast.js';
import { type Clock, type KV } from '@roster/kv-adapter';
import { withDeadline } from '@roster/kv-adapter/internal';
import { applyListStep, listIdOf, parseListStep, sameListId, withMembers, type ListCache, type ListId, type ListStep } from './listStep.js';

/** Most steps a reader reads back from a new list to one it holds. */
const MAX_STEPS = 3;

/** Options of {@link StepReader}. */
export interface StepReaderOptions {
  readonly kv: KV;
  readonly clock: Clock;
  /** Where the leader writes the step to each list (`RosterKeys.listStep`). */
  readonly stepKey: (to: ListId) => string;
  /** The lists steps start from. */
  readonly lists: ListCache;
  /** The time one build may spend on steps in all. */
  readonly budgetMs: number;
  /** After a step read failed, steps are not read for this long. */
  readonly offForMs: number;
}

/**
 * Builds a new member list from one the reader holds and the steps the leader wrote since (see
 * `ListStep`), so that a follower reads a few changes instead of the whole list.
 */
export class StepReader {
  readonly #o: StepReaderOptions;
  /** Steps are not read before this time (a step read failed: the shortcut is off for a while). */
  #offUntil = Number.NEGATIVE_INFINITY;

  constructor(options: StepReaderOptions) {
    this.#o = options;
  }

  /**
   * The broadcast at header `h` built from a list held and the steps since (one `get` per step,
   * at most {@link MAX_STEPS}, within `budgetMs` in all); `undefined` when it cannot be (no step,
   * a step that does not fit, a step read that failed: then steps are not read again for
   * `offForMs`, so a dead shard holding them costs one timeout, not one per poll). Never rejects.
   */
  async build(h: BroadcastHeader, signal: AbortSignal | undefined): Promise<Broadcast | undefined> {
    const { kv, clock, stepKey, lists, budgetMs } = this.#o;
    const start = clock.now();
    if (h.version === 0 || start < this.#offUntil) return undefined;
    const chain: ListStep[] = [];
    let target = listIdOf(h);
    for (let hop = 0; hop < MAX_STEPS; hop++) {
      const left = start + budgetMs - clock.now();
      let value: string | null;
      try {
        if (left <= 0) throw new Error('list steps took too long');
        value = await withDeadline(clock, left, 'list step read', kv.get(stepKey(target), { signal }));
      } catch {
        this.#offUntil = clock.now() + this.#o.offForMs;
        return undefined;
      }
      const step = value === null ? undefined : parseListStep(value);
      if (step === undefined || !sameListId(step.to, target)) return undefined;
      chain.push(step);
      let members = lists.get(step.from);
      if (members === undefined) {
        target = step.from;
        continue;
      }
      for (let i = chain.length - 1; i >= 0 && members !== undefined; i--) members = applyListStep(members, chain[i]!);
      return members === undefined ? undefined : withMembers(h, members);
    }
    return undefined;
  }
}

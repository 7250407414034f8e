/** One member as the membership reports it: an id and its thread count (the Roster member weight). */
export interface BalanceMember {
  /** The instance id. */
  readonly id: string;
  /** The instance's thread count (its weight in the broadcast). */
  readonly weight: number;
}

/** One instance of the cluster with the range of thread indices it holds. */
export interface Instance {
  /** The instance id. */
  readonly id: string;
  /** How many threads it runs: it holds indices `index` to `index + threads − 1`. */
  readonly threads: number;
  /** Its base thread index: the sum of the thread counts of the instances sorted before it. */
  readonly index: number;
}

/** What {@link computeBalance} returns. */
export interface BalanceResult {
  /** This instance's base index, or −1 when it is not among the members. */
  readonly index: number;
  /** The sum of every member's thread count. */
  readonly total: number;
  /** Every member, sorted by id, with its base index. */
  readonly instances: readonly Instance[];
}

/**
 * libcluster's balancing rule, as a pure function: sort the instances by id (by UTF-16
 * code unit, as the broadcast is sorted); each instance's base index is the sum of the thread
 * counts of the instances before it; the total is the sum of all. So the instances hold the
 * disjoint ranges `[index, index + threads)` that together cover `0 … total − 1`.
 *
 * Ids are expected to be unique (a Roster broadcast never repeats one); a repeated id counts once,
 * with its first thread count.
 *
 * @example
 * ```ts
 * computeBalance([{ id: 'node3', weight: 4 }, { id: 'node1', weight: 2 }, { id: 'node2', weight: 1 }], 'node3');
 * // { index: 3, total: 7, instances: [{ id: 'node1', threads: 2, index: 0 },
 * //                                   { id: 'node2', threads: 1, index: 2 },
 * //                                   { id: 'node3', threads: 4, index: 3 }] }
 * ```
 */
export function computeBalance(members: readonly BalanceMember[], selfId: string): BalanceResult {
  const seen = new Set<string>();
  const unique = members.filter((m) => !seen.has(m.id) && seen.add(m.id));
  const sorted = unique.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const instances: Instance[] = [];
  let total = 0;
  let index = -1;
  for (const m of sorted) {
    if (m.id === selfId) index = total;
    instances.push({ id: m.id, threads: m.weight, index: total });
    total += m.weight;
  }
  return { index, total, instances };
}

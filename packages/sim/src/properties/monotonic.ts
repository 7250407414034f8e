import { leaderships as verifyLeaderships, tokenInversions as verifyTokenInversions, type Leadership } from '@roster/verify';
import { eraLosses, toVerifyHistory } from '../history/toVerifyHistory.js';
import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';

/** A leadership as it began: a node's own `leader` update naming itself (see `@roster/verify`'s `leaderships`). */
export type { Leadership } from '@roster/verify';

/** Every leadership of the run, in the order they began: a node's `leader` naming itself while its role is leader. */
export function leaderships(run: Run): Leadership[] {
  return verifyLeaderships(toVerifyHistory(run));
}

/** When `l` was first claimed (its candidate's claim), or `l.at` when no claim was recorded. */
function claimedAt(run: Run, l: { at: number; id: string; era: number; nonce: number }): number {
  const claim = run.history.claims.find((c) => c.id === l.id && c.era === l.era && c.nonce === l.nonce);
  return claim === undefined ? l.at : Math.min(claim.at, l.at);
}

/** When the store lost the record of the era (see {@link eraLosses}). */
function lossesOf(run: Run): number[] {
  return eraLosses(run.history.appliedSteps());
}

/**
 * Leaderships whose token is not above every earlier one's, each with the earlier one it fell
 * below: `@roster/verify`'s `token-order` rule on the run. A drop is excused (not returned) when
 * the store lost data in between: a flush, or garbage written into the leader key, can erase the
 * only record of the higher era.
 */
export function tokenInversions(run: Run): { earlier: Leadership; later: Leadership }[] {
  return verifyTokenInversions(toVerifyHistory(run), { dataLossKinds: ['store-data-loss'] });
}

/**
 * Monotonic: the era each node follows never decreases, the fencing tokens of the successive
 * leaderships each node follows strictly increase (with any views of the store), no write at the
 * leader key replaces a better leadership's broadcast, and (with a shared view) each new
 * leadership's fencing token is higher than every earlier one's.
 */
export const monotonic: Property = {
  name: 'monotonic',
  summary: "the era a node follows never decreases and each leadership it follows next has a higher fencing token; no leader-key write replaces a better leadership; each new leader's token exceeds every earlier leader's (shared views); a drop across data loss is excused",
  check(run) {
    const violations: Violation[] = [];
    const losses = lossesOf(run);
    for (const inc of run.history.incarnations) {
      let last: { at: number; era: number; nonce: number; id: string; token: bigint } | undefined;
      for (const { at, update } of run.history.updatesOf(inc.label)) {
        if (update.type !== 'leader' || update.leader === undefined) continue;
        const l = update.leader;
        if (last !== undefined && l.id === last.id && l.era === last.era && l.nonce === last.nonce) continue;
        // After the store lost its data the higher era may exist nowhere any more (an observer
        // then moves on to the leader elected since): excused, as for fencing tokens below.
        const excused = last !== undefined && losses.some((t) => t >= last!.at && t <= at);
        if (last !== undefined && l.era < last.era && !excused) {
          violations.push({ property: 'monotonic', at, message: `${inc.label} followed ${l.id} at era ${l.era} after ${last.id} at era ${last.era} (${last.at} ms)` });
        } else if (last !== undefined && l.token <= last.token) {
          // Whatever the views, the leaderships one node follows in turn carry rising tokens,
          // unless the store lost data after either was claimed: a flush can erase a leadership
          // and let another node claim the same era and nonce.
          const since = Math.min(claimedAt(run, last), claimedAt(run, { at, id: l.id, era: l.era, nonce: l.nonce }));
          if (!losses.some((t) => t >= since && t <= at)) {
            violations.push({
              property: 'monotonic',
              at,
              message: `${inc.label} followed ${l.id} with token ${l.token} (era ${l.era}, nonce ${l.nonce}) after ${last.id} with token ${last.token} (era ${last.era}, nonce ${last.nonce}, at ${last.at} ms)`,
            });
          }
        }
        last = { at, era: l.era, nonce: l.nonce, id: l.id, token: l.token };
      }
    }
    // The leader key's value at a nonce never gets worse: a write replaces only what its writer
    // read (compare-and-set), and a writer that read a better leadership stands down.
    for (const o of run.history.overwrites) {
      violations.push({
        property: 'monotonic',
        at: o.at,
        message: `${o.value.id} wrote era ${o.value.era}, nonce ${o.value.nonce} at ${o.key} over ${o.previous.id}'s better era ${o.previous.era}, nonce ${o.previous.nonce}`,
      });
    }
    if (run.views === 'shared') {
      for (const { earlier, later } of tokenInversions(run)) {
        violations.push({
          property: 'monotonic',
          at: later.at,
          message: `${later.node} began leading with token ${later.token} (era ${later.era}, nonce ${later.nonce}), not above ${earlier.node}'s ${earlier.token} (era ${earlier.era}, nonce ${earlier.nonce}, at ${earlier.at} ms)`,
        });
      }
    }
    return violations;
  },
};

import type { Run } from '../runtime/Simulation.js';
import type { Property, Violation } from './Property.js';

/**
 * Nothing invented: every leader a node follows was claimed by that node (same era and nonce)
 * before, and every member a node lists had asked to join (appended its own id) or claimed
 * before. Values that do not parse, written into any key, are therefore never adopted.
 */
export const nothingInvented: Property = {
  name: 'nothing-invented',
  summary: 'every leader followed campaigned for that era and nonce; every member listed asked to join; garbage is never adopted',
  check(run) {
    const { claims, joins } = run.history;
    const violations: Violation[] = [];
    for (const entry of run.history.entries) {
      if (entry.kind !== 'update') continue;
      const { at, update } = entry;
      if (update.type === 'leader' && update.leader !== undefined) {
        const l = update.leader;
        if (!claims.some((c) => c.at <= at && c.id === l.id && c.era === l.era && c.nonce === l.nonce)) {
          violations.push({ property: 'nothing-invented', at, message: `${entry.node} follows ${l.id} at era ${l.era}, nonce ${l.nonce}, which ${l.id} never claimed` });
        }
      } else if (update.type === 'members') {
        for (const m of update.members) {
          const joined = joins.some((j) => j.at <= at && j.id === m.id) || claims.some((c) => c.at <= at && c.id === m.id);
          if (!joined) violations.push({ property: 'nothing-invented', at, message: `${entry.node} lists ${m.id}, which never asked to join` });
        }
      }
    }
    return violations;
  },
};

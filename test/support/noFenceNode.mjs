/**
 * A Roster node with its self-fencing taken out, for test/verify.test.ts: a mutant of what users
 * see. It runs `createNode()` but, when its lease lapses (it can no longer renew: `lease-expired`,
 * `store-unavailable`), keeps reporting `leader` until it sees another node lead, as an elector
 * without a renew deadline would. `roster verify` must catch it (`two-leaders`).
 *
 * node test/support/noFenceNode.mjs --url URL --group G --env E --id ID --interval MS --timeout MS
 */
import { parseArgs } from 'node:util';
import { createNode } from '@roster/election';
import { connectStore } from '@roster/kv-adapter';

const { values } = parseArgs({
  options: { url: { type: 'string' }, group: { type: 'string' }, env: { type: 'string' }, id: { type: 'string' }, interval: { type: 'string' }, timeout: { type: 'string' } },
});
const intervalMs = Number(values.interval);
const kv = await connectStore(values.url, { commandTimeoutMs: intervalMs / 2 });
const node = createNode({ store: kv, group: values.group, env: values.env, id: values.id, intervalMs, timeoutMs: Number(values.timeout) });
const print = (line) => process.stdout.write(`${JSON.stringify({ ts: Date.now(), id: node.id, ...line })}\n`);

/** True while the node has lapsed but goes on calling itself leader. */
let posing = false;
let shownRole = node.role;
node.watch((u) => {
  if (u.type === 'role') {
    if (u.previous === 'leader' && (u.reason === 'lease-expired' || u.reason === 'store-unavailable')) {
      posing = true;
      return;
    }
    if (posing) return;
    print({ event: 'role', role: u.role, previous: shownRole, reason: u.reason });
    shownRole = u.role;
  } else if (u.type === 'leader') {
    const l = u.leader;
    if (posing && l?.id === node.id) return;
    if (posing && l === undefined) return;
    if (posing) {
      // Another node leads: only now does the mutant step down.
      posing = false;
      print({ event: 'role', role: node.role, previous: shownRole, reason: 'saw-another-leader' });
      shownRole = node.role;
    }
    print({ event: 'leader', leader: l?.id ?? null, era: l?.era ?? null, nonce: l?.nonce ?? null, token: l ? String(l.token) : null });
  } else if (u.type === 'members') {
    print({ event: 'members', version: u.version, members: u.members.map((m) => m.id), added: [...u.added], removed: [...u.removed] });
  }
});
print({ event: 'role', role: node.role, previous: null, reason: 'started' });
process.on('SIGTERM', async () => {
  await node.stop();
  print({ event: 'stopped' });
  await kv.close();
  process.exit(0);
});
await node.start();

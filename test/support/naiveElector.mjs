/**
 * A deliberately naive leader elector, for test/verify.test.ts to show that `roster verify`
 * catches a broken implementation on real processes: `SET key id NX PX ttl` to take the lead and
 * a compare-and-PEXPIRE script every interval to renew it, with no timeout on the renewal (the pattern
 * of redis-leader and many hand-written electors). While its link to Redis is cut, the renewal
 * hangs and it keeps reporting `leader`, as the key expires and another node takes it: two
 * leaders. It prints the JSON lines of `roster node --json` (a token from INCR on each new
 * leadership); its members line lists itself alone.
 *
 * node test/support/naiveElector.mjs --url redis://… --group G --id ID --interval MS --ttl MS
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';

const { values } = parseArgs({
  options: { url: { type: 'string' }, group: { type: 'string' }, id: { type: 'string' }, interval: { type: 'string' }, ttl: { type: 'string' } },
});
const id = values.id;
const intervalMs = Number(values.interval ?? 100);
const ttlMs = Number(values.ttl ?? 500);
const key = `roster/${values.group}/naive/leader`;
const tokenKey = `roster/${values.group}/naive/token`;
// No command timeout, retries forever: the naive part.
const redis = new Redis(values.url, { maxRetriesPerRequest: null, enableOfflineQueue: true });
redis.on('error', () => undefined);

/** Extends the key's TTL if this node still holds it (atomic, but with no timeout on the call). */
const RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

let role = 'follower';
let token = null;
const print = (line) => process.stdout.write(`${JSON.stringify({ ts: Date.now(), id, ...line })}\n`);
const become = (next, reason) => {
  if (next === role) return;
  print({ event: 'role', role: next, previous: role, reason });
  role = next;
};
print({ event: 'role', role, previous: null, reason: 'started' });
print({ event: 'members', version: 1, members: [id], added: [id], removed: [] });

let lastLeader;
for (;;) {
  try {
    if (role === 'leader') {
      const renewed = await redis.eval(RENEW, 1, key, id, ttlMs);
      if (renewed !== 1) become('follower', 'lost');
    } else if ((await redis.set(key, id, 'PX', ttlMs, 'NX')) === 'OK') {
      token = String(await redis.incr(tokenKey));
      await redis.pexpire(tokenKey, 600_000);
      become('leader', 'acquired');
    }
    const holder = await redis.get(key);
    if (holder !== lastLeader) {
      lastLeader = holder;
      print({ event: 'leader', leader: holder, era: holder ? 1 : null, nonce: holder ? 0 : null, token: holder === id ? token : holder ? '0' : null });
    }
  } catch {
    // keep going
  }
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
}

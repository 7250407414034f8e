/**
 * A service process for test/leader-work.test.ts: one Roster node on a real Redis, doing leader
 * work through `whileLeader()` that takes `--wind-down MS` to settle once its signal aborts (and
 * prints the fencing token it was given, as the `leader` updates print theirs). It
 * prints one JSON line per event on stdout, each with `t`, the wall time in ms with sub-ms
 * precision (comparable across processes of one machine), and reads commands from stdin:
 * `resign` (calls `node.resign()`) and `stop` (calls `node.stop()`, then exits).
 *
 * node test/support/leaderWorkNode.mjs --url redis://… --env ENV --id ID [--wind-down 300] [--priority N]
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createNode } from '@roster/election';
import { RedisKV } from '@roster/kv-adapter/redis';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    env: { type: 'string' },
    id: { type: 'string' },
    'wind-down': { type: 'string', default: '300' },
    interval: { type: 'string', default: '100' },
    timeout: { type: 'string', default: '500' },
    priority: { type: 'string', default: '0' },
  },
});
const windDownMs = Number(values['wind-down']);
const now = () => performance.timeOrigin + performance.now();
const print = (event, fields = {}) => process.stdout.write(`${JSON.stringify({ t: now(), event, ...fields })}\n`);

const kv = await RedisKV.connect({ url: values.url, commandTimeoutMs: 1000 });
const node = createNode({
  store: kv,
  group: 'leader-work',
  env: values.env,
  id: values.id,
  intervalMs: Number(values.interval),
  timeoutMs: Number(values.timeout),
  priority: Number(values.priority),
});
node.watch((u) => {
  if (u.type === 'role') print('role', { role: u.role, previous: u.previous, reason: u.reason });
  if (u.type === 'leader') print('leader', { leader: u.leader?.id ?? null, token: u.leader ? String(u.leader.token) : null });
});
node.whileLeader(
  ({ signal, token }) =>
    new Promise((resolve) => {
      print('work-started', { token: String(token) });
      signal.addEventListener('abort', () => {
        print('work-aborted', { reason: signal.reason?.reason });
        setTimeout(() => {
          print('work-settled');
          resolve();
        }, windDownMs);
      });
    }),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  print('stop-called');
  await node.stop();
  print('stopped');
  await kv.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'resign') {
    print('resign-called');
    void node.resign().then(() => print('resigned'));
  } else if (line === 'stop') {
    void stop();
  }
});
await node.start();
print('started');

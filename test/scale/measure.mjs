// Measures Roster's store cost and timings on a real redis-server with N members:
//
//   pnpm build && node test/scale/measure.mjs <N> <intervalMs> <timeoutMs> [nodesPerProcess]
//
// The leader runs alone in this process; the other N − 1 members are `createNode` instances in
// worker processes (nodesPerProcess each, default 250), each process sharing one RedisKV. It
// reports convergence time, Redis commands and bytes sent per member per interval in steady state
// (INFO commandstats and total_net_output_bytes deltas), the leader process's CPU, and the
// failover time after the leader crashes (destroy(): no goodbye), as one JSON line.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createNode } from '@roster/election';
import { RedisKV } from '@roster/kv-adapter/redis';
import { LocalRedis } from '@roster/testing';
import { Redis } from 'ioredis';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (process.argv[2] === '--worker') await worker();
else await main();

async function worker() {
  const { url, ids, intervalMs, timeoutMs, n } = JSON.parse(process.argv[3]);
  const kv = await RedisKV.connect({ url, commandTimeoutMs: Math.max(1000, intervalMs) });
  const nodes = ids.map((id) => createNode({ store: kv, group: 'scale', env: 'measure', id, intervalMs, timeoutMs }));
  let converged = 0;
  let following = 0;
  let oldLeader;
  for (const node of nodes) {
    let seen = false;
    node.on('members', (u) => {
      if (!seen && u.members.length === n) {
        seen = true;
        if (++converged === nodes.length) process.send({ type: 'converged', at: now() });
      }
    });
    let moved = false;
    node.on('leader', (u) => {
      if (oldLeader && u.leader && u.leader.id !== oldLeader && !moved) {
        moved = true;
        if (++following === nodes.length - (nodes.some((x) => x.isLeader()) ? 1 : 0)) process.send({ type: 'following', at: now() });
      }
    });
    node.on('role', (u) => {
      if (u.role === 'leader') process.send({ type: 'elected', at: now(), id: node.id });
    });
  }
  process.on('message', async (m) => {
    if (m.type === 'start') await Promise.all(nodes.map((node) => node.start()));
    if (m.type === 'crashed') oldLeader = m.leader;
    if (m.type === 'stop') {
      for (const node of nodes) node.destroy();
      await kv.close();
      process.exit(0);
    }
  });
  // The parent gone (killed, timed out): so are we.
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready' });
}

async function main() {
  const n = Number(process.argv[2] ?? 100);
  const intervalMs = Number(process.argv[3] ?? 100);
  const timeoutMs = Number(process.argv[4] ?? 5 * intervalMs);
  const perProcess = Number(process.argv[5] ?? 250);
  // The one local-server fixture of the tests, the bench and the demo (@roster/testing).
  const server = await LocalRedis.start();
  const { port, url } = server;
  const admin = new Redis(port, '127.0.0.1', { lazyConnect: true });
  admin.on('error', () => undefined);
  const workers = [];
  // Stopped from outside (a timeout): take the redis-server and the workers down too.
  process.once('SIGTERM', () => {
    for (const w of workers) w.kill();
    void server.kill();
    process.exit(143);
  });
  try {
    for (let i = 0; i < 50; i++) {
      try {
        await admin.connect();
        break;
      } catch {
        await sleep(100);
      }
    }
    const kv = await RedisKV.connect({ url });
    const leader = createNode({ store: kv, group: 'scale', env: 'measure', id: 'leader', intervalMs, timeoutMs });
    await leader.start();
    while (!leader.isLeader()) await sleep(intervalMs / 2);

    const ids = Array.from({ length: n - 1 }, (_, i) => `member-${String(i).padStart(5, '0')}`);
    const events = [];
    const waiters = [];
    const on = (type, count) => new Promise((resolve) => waiters.push({ type, count, resolve }));
    for (let i = 0; i < ids.length; i += perProcess) {
      const chunk = ids.slice(i, i + perProcess);
      const child = fork(fileURLToPath(import.meta.url), ['--worker', JSON.stringify({ url, ids: chunk, intervalMs, timeoutMs, n })]);
      child.on('message', (m) => {
        events.push(m);
        for (const w of waiters) {
          const got = events.filter((e) => e.type === w.type);
          if (got.length >= w.count && !w.done) {
            w.done = true;
            w.resolve(got);
          }
        }
      });
      workers.push(child);
    }
    await on('ready', workers.length);
    const startedAt = now();
    for (const w of workers) w.send({ type: 'start' });
    const progress = setInterval(() => {
      const done = events.filter((e) => e.type === 'converged').length;
      console.error(`… ${Math.round(now() - startedAt)} ms: the leader lists ${leader.members.list.length} of ${n}; ${done} of ${workers.length} processes converged`);
    }, 10 * intervalMs);
    const converged = await on('converged', workers.length);
    clearInterval(progress);
    while (leader.members.list.length < n) await sleep(10);
    const convergeMs = Math.max(...converged.map((e) => e.at)) - startedAt;

    // Steady state: let the joins settle, then count.
    await sleep(5 * intervalMs);
    const intervals = intervalMs >= 1000 ? 20 : 50;
    const stats = async () => {
      const text = `${await admin.info('commandstats')}\n${await admin.info('stats')}`;
      const calls = {};
      for (const m of text.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) calls[m[1]] = Number(m[2]);
      return { calls, out: Number(/total_net_output_bytes:(\d+)/.exec(text)[1]) };
    };
    const cpu0 = process.cpuUsage();
    const a = await stats();
    await sleep(intervals * intervalMs);
    const b = await stats();
    const cpu = process.cpuUsage(cpu0);
    const perCommand = {};
    let total = 0;
    for (const [cmd, calls] of Object.entries(b.calls)) {
      const d = calls - (a.calls[cmd] ?? 0);
      if (cmd === 'info') continue;
      if (d > 0) perCommand[cmd] = +(d / (n * intervals)).toFixed(3);
      total += d;
    }
    const result = {
      n,
      intervalMs,
      timeoutMs,
      processes: workers.length + 1,
      convergeMs: Math.round(convergeMs),
      commandsPerMemberInterval: +(total / (n * intervals)).toFixed(3),
      perCommand,
      bytesOutPerMemberInterval: Math.round((b.out - a.out) / (n * intervals)),
      leaderCpuPerInterval: `${(((cpu.user + cpu.system) / 1000 / intervals)).toFixed(2)} ms`,
    };

    // Failover: crash the leader.
    const crashedAt = now();
    for (const w of workers) w.send({ type: 'crashed', leader: 'leader' });
    leader.destroy();
    const elected = await on('elected', 1);
    const following = await on('following', workers.length);
    result.failoverMs = Math.round(elected[0].at - crashedAt);
    result.allFollowMs = Math.round(Math.max(...following.map((e) => e.at)) - crashedAt);
    result.bound = `T + 2I = ${timeoutMs + 2 * intervalMs}`;
    console.log(JSON.stringify(result));
    await kv.close();
  } finally {
    for (const w of workers) w.send({ type: 'stop' });
    await sleep(500);
    for (const w of workers) w.kill();
    admin.disconnect();
    await server.stop();
  }
}

import { get, type ClientRequest } from 'node:http';
import { connectDaemon, type DaemonClient, type DaemonUpdate } from '@roster/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess, statusUrl } from './support/rosterNode.js';

/**
 * The thin client of a local daemon (typed watch updates) on real daemons: `roster node --json
 * --status-port 0` processes on a real redis-server and the real clock, and `@roster/client`
 * reading one node's `/events`.
 */
const I = 100;
const T = 600;
const WAIT = 15_000;

let redis: RedisTestServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await killAllNodes();
  await redis?.stop();
});

/** Clients and raw streams opened by a test; closed after it, whatever happened. */
let clients: DaemonClient[] = [];
let raws: ClientRequest[] = [];
afterEach(async () => {
  for (const raw of raws) raw.destroy();
  await Promise.all(clients.map((c) => c.close()));
  await killAllNodes();
  clients = [];
  raws = [];
});

function freshKey(): string {
  return `dc${Math.random().toString(36).slice(2, 8)}`;
}

function startNode(key: string, id: string, statusPort = 0): RosterNodeProcess {
  return startRoster('node', '--store', redis.url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json', '--status-port', String(statusPort));
}

/** The status page URL a node logs on stderr at start (`INFO  status page url=http://127.0.0.1:PORT/ …`). */
/** A client on `url` whose updates are recorded. */
function watchDaemon(url: string): { client: DaemonClient; seen: DaemonUpdate[] } {
  const client = connectDaemon(url, { retryMs: 50 });
  clients.push(client);
  const seen: DaemonUpdate[] = [];
  client.watch((u) => seen.push(u));
  return { client, seen };
}

/** The raw `/events` lines of `url`, and whether the stream has ended. */
function rawEvents(url: string): { lines: string[]; ended: () => boolean } {
  const lines: string[] = [];
  let ended = false;
  let partial = '';
  const request = get(`${url}events`, (response) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
    });
    response.on('end', () => (ended = true));
  });
  request.on('error', () => {});
  raws.push(request);
  return { lines, ended: () => ended };
}

const show = (seen: readonly DaemonUpdate[], ...nodes: RosterNodeProcess[]) => (): string =>
  `${JSON.stringify(seen, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}\n${nodes.map((n) => n.describe()).join('\n')}`;

/** Where the first update of `type` about `id` (the member's, or the leader's) is in `seen`; -1 if none. */
function indexOf(seen: readonly DaemonUpdate[], type: 'add' | 'delete' | 'goodbye' | 'leader', id: string): number {
  return seen.findIndex((u) => {
    if (u.type !== type) return false;
    if (u.type === 'add' || u.type === 'delete') return u.id === id;
    return (u.type === 'goodbye' || u.type === 'leader') && u.leader?.id === id;
  });
}

/** Starts `y` and waits until it leads, then `x` as its follower; returns both and x's status URL. */
async function leaderAndFollower(key: string): Promise<{ x: RosterNodeProcess; y: RosterNodeProcess; url: string }> {
  const y = startNode(key, 'y');
  await until(() => y.role === 'leader', WAIT, () => y.describe());
  const x = startNode(key, 'x');
  return { x, y, url: await statusUrl(x, WAIT) };
}

describe('@roster/client on roster node /events', () => {
  it('sees add for both nodes, then delete and goodbye when the other node, the leader, stops gracefully', async () => {
    const { x, y, url } = await leaderAndFollower(freshKey());
    const { client, seen } = watchDaemon(url);
    const raw = rawEvents(url);
    await until(() => client.members.join() === 'x,y' && client.leader?.id === 'y', WAIT, show(seen, x, y));
    expect(seen[0]).toEqual({ type: 'connected' });
    expect(seen.filter((u) => u.type === 'add').map((u) => u.type === 'add' && u.id).sort()).toEqual(['x', 'y']);
    expect(client.role).toBe('follower');

    y.signal('SIGTERM');
    expect(await y.exited).toEqual({ code: 0, signal: null });
    await until(() => indexOf(seen, 'delete', 'y') >= 0 && client.leader?.id === 'x', WAIT, show(seen, x));
    const goodbye = indexOf(seen, 'goodbye', 'y');
    expect(goodbye, show(seen)()).toBeGreaterThan(0);
    expect(indexOf(seen, 'leader', 'x')).toBeGreaterThan(goodbye);
    expect(client.members).toEqual(['x']);
    await until(() => client.role === 'leader', WAIT, show(seen, x));

    // The stream is exactly the --json lines after a three-line snapshot, and ends with `stopped`.
    x.signal('SIGTERM');
    expect(await x.exited).toEqual({ code: 0, signal: null });
    await until(() => raw.ended(), WAIT, () => raw.lines.join('\n'));
    const snapshot = raw.lines.slice(0, 3).map((l) => JSON.parse(l) as { event: string });
    expect(snapshot.map((e) => e.event)).toEqual(['role', 'leader', 'members']);
    const live = raw.lines.slice(3);
    expect(live.length).toBeGreaterThan(0);
    expect(live).toEqual(x.lines.slice(-live.length));
    expect(JSON.parse(live.at(-1)!)).toMatchObject({ id: 'x', event: 'stopped' });
    await until(() => !client.connected, WAIT, show(seen));
    expect(seen.at(-1)).toEqual({ type: 'disconnected', reason: 'the daemon stopped' });
  });

  it('a leader killed with SIGKILL: goodbye once the others elect a new leader, and delete once it is dropped', async () => {
    const { x, y, url } = await leaderAndFollower(freshKey());
    const { client, seen } = watchDaemon(url);
    await until(() => client.members.join() === 'x,y' && client.leader?.id === 'y', WAIT, show(seen, x, y));

    y.signal('SIGKILL');
    await y.exited;
    await until(() => client.leader?.id === 'x' && client.members.join() === 'x', WAIT, show(seen, x));
    const goodbye = indexOf(seen, 'goodbye', 'y');
    expect(goodbye).toBeGreaterThan(0);
    expect(indexOf(seen, 'delete', 'y')).toBeGreaterThan(0);
    expect(seen.filter((u) => u.type === 'goodbye')).toHaveLength(1);
  });

  it('when its daemon restarts, the client reconnects and reports only what changed meanwhile', async () => {
    const key = freshKey();
    const { x, y, url } = await leaderAndFollower(key);
    const { client, seen } = watchDaemon(url);
    await until(() => client.members.join() === 'x,y' && client.leader?.id === 'y', WAIT, show(seen, x, y));
    const leader = client.leader;

    x.signal('SIGTERM');
    expect(await x.exited).toEqual({ code: 0, signal: null });
    await until(() => !client.connected, WAIT, show(seen, x));
    expect(seen.at(-1)).toEqual({ type: 'disconnected', reason: 'the daemon stopped' });
    // While x is down, z joins.
    const z = startNode(key, 'z');
    await until(() => y.members.join() === 'y,z', WAIT, show(seen, y, z));
    const before = seen.length;
    const again = startNode(key, 'x', Number(new URL(url).port));
    await until(() => client.connected && client.members.join() === 'x,y,z', WAIT, show(seen, again, y, z));

    const after = seen.slice(before);
    expect(after[0]).toEqual({ type: 'connected' });
    expect(indexOf(after, 'add', 'z'), show(after)()).toBeGreaterThan(0);
    // y led all along: no goodbye, no leader update, and y is never added again. (x itself may
    // show as deleted and added again, as it left the cluster while its daemon was down.) The
    // role was forgotten while the link was down, so the new snapshot tells it once: follower.
    expect(after.filter((u) => u.type === 'goodbye' || u.type === 'leader'), show(after)()).toEqual([]);
    expect(after.filter((u) => u.type === 'role'), show(after)()).toEqual([{ type: 'role', role: 'follower' }]);
    expect(client.role).toBe('follower');
    expect(indexOf(after, 'add', 'y')).toBe(-1);
    expect(after.filter((u) => u.type === 'add' || u.type === 'delete').every((u) => (u as { id: string }).id !== 'y')).toBe(true);
    expect(client.leader).toEqual(leader);
  });
});

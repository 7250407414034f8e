import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';
import { startTcpProxy, type TcpProxy } from './support/tcpProxy.js';

/**
 * A slow and lossy network, for real: three `roster node --json` processes reach a real
 * redis-server only through an in-process TCP proxy that adds latency to every chunk and cuts every
 * connection on demand. The cluster must form and stay converged through latency, through repeated
 * cuts, and through a network down longer than T; a leader cut off from the store is replaced.
 */
const I = 200;
const T = 1000;
const BOUND = 2 * T + 4 * I;
/** Generous for a real clock on a loaded machine: the bound twice over plus reconnecting. */
const GENEROUS = 2 * BOUND + 5000;

let redis: RedisTestServer;
let proxy: TcpProxy;
let nodes: RosterNodeProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  proxy = await startTcpProxy(redis.port);
});
afterAll(async () => {
  await killAllNodes();
  await proxy?.close();
  await redis?.stop();
});
afterEach(async () => {
  await killAllNodes();
  proxy.setLatency(0);
  proxy.setRefusing(false);
});

function startCluster(key: string): RosterNodeProcess[] {
  nodes = [0, 1, 2].map((i) =>
    startRoster('node', '--json', '--store', `redis://127.0.0.1:${proxy.port}`, '--group', key, '--env', 'net', '--id', `n${i}`, '--interval', String(I), '--timeout', String(T)),
  );
  return nodes;
}

function converged(): boolean {
  const leader = nodes[0]?.leader;
  if (!leader) return false;
  const holder = nodes.find((p) => p.events[0]?.id === leader.id);
  if (!holder || holder.role !== 'leader') return false;
  return nodes.every((p) => p.alive && p.leader?.id === leader.id && p.leader.token === leader.token && p.members.join(',') === 'n0,n1,n2');
}

const describeAll = (): string => nodes.map((p) => p.describe().slice(-1500)).join('\n');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('roster node through a slow and lossy network', () => {
  // Every store operation must finish within its deadline, I/2 (100 ms here): 20 ms each way
  // (a 40 ms round trip) fits; a round trip above I/2 makes every operation fail as unavailable.
  it('forms one leader and is still converged 5T later with 20 ms of latency each way on every store operation', async () => {
    proxy.setLatency(20);
    startCluster('latency');
    await until(converged, 10 * T + GENEROUS, () => `no convergence at 20 ms latency:\n${describeAll()}`);
    await sleep(5 * T);
    await until(converged, GENEROUS, () => `not converged 5T later at 20 ms latency:\n${describeAll()}`);
  });

  it('converges again after each of 5 cuts of every store connection, and no node exits', async () => {
    proxy.setLatency(5);
    startCluster('cuts');
    await until(converged, 10 * T + GENEROUS, () => `the cluster never formed:\n${describeAll()}`);
    for (let round = 0; round < 5; round++) {
      const before = proxy.accepted;
      proxy.dropAll();
      await until(() => proxy.accepted >= before + 3, GENEROUS, () => `the nodes did not reconnect after cut ${round + 1}`);
      await until(converged, GENEROUS, () => `no convergence after cut ${round + 1}:\n${describeAll()}`);
    }
    for (const p of nodes) expect(p.alive, p.describe()).toBe(true);
  });

  it('a network down for 3T: the nodes keep running, report the store unavailable, and converge when it is back', async () => {
    startCluster('down');
    await until(converged, 10 * T + GENEROUS, () => `the cluster never formed:\n${describeAll()}`);
    proxy.setRefusing(true);
    proxy.dropAll();
    await sleep(3 * T);
    for (const p of nodes) expect(p.alive, p.describe()).toBe(true);
    proxy.setRefusing(false);
    await until(converged, GENEROUS, () => `no convergence after the network came back:\n${describeAll()}`);
    expect(nodes.some((p) => /connection lost|unavailable|failed/.test(p.stderr)), describeAll()).toBe(true);
  });
});

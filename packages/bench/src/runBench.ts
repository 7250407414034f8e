/**
 * One run of the bench: starts the stores (redis-server, etcd, a Redis Cluster, Sentinel, PostgreSQL, MariaDB,
 * nats-server), compares the systems on groups of real processes, runs the scale cases, and returns
 * the result record. Every process it starts is stopped before it returns, also on failure.
 */
import { Etcd3 } from 'etcd3';
import { LocalPostgres } from '@roster/testing';
import { startEtcd, etcdVersion, type EtcdServer } from './infra/etcdServer.js';
import { killAll } from './infra/processes.js';
import { startCpuHog, type CpuHog } from './infra/cpuHog.js';
import { startMariaDB as startMariaDBServer, startNats as startNatsServer, type MariaDBServer, type RunningNats } from './infra/sqlAndNatsServers.js';
import { redisVersion, startRedisCluster, startRedisSentinel, startRedisServer, type RedisClusterServers, type RedisSentinelServers, type RedisServer } from './infra/redisServer.js';
import { Group } from './harness/Group.js';
import { measureFailover, measureResign, measureStall, type Progress } from './measure/leadership.js';
import { measureMembership } from './measure/membership.js';
import type { BenchOptions } from './options.js';
import { currentLoad, machineInfo } from './report/machine.js';
import { ratioOf, type BenchResult, type SystemResult } from './result.js';
import { mariadbCounters } from './scale/mariadbStats.js';
import { runScaleCase } from './scale/runScale.js';
import { etcdSystem, redisLeaderSystem } from './systems/peers.js';
import { rosterSystem } from './systems/roster.js';
import type { System } from './systems/System.js';

const NOTES = [
  'failover: SIGKILL of the leader until another node reports leading (its own timestamp); the group is steady before each kill, and a fresh node replaces the killed one',
  'stall: SIGSTOP of the leader for D ms then SIGCONT; a try moved leadership when another node reported leading within the settle time after SIGCONT; tolerance = the longest D that, with every shorter D on the grid, never moved it',
  'disruption-free pause: on the stall grid, the longest D that, with every shorter D, changed no node\'s reported role in any try (no other leader, no step-down or lapse of the paused leader, no follower standing)',
  'resign: SIGTERM of the leader until another node reports leading',
  'join: from the new node\'s first line (store reached) until every other node lists it; leave: from SIGTERM of a follower until every other node drops it',
  'scale: commands sent = every process counts its store operations (each one command or one script call) over a steady window; Redis calls from INFO commandstats (which also counts the commands a script runs inside) and bytes from INFO stats deltas over that window, summed over the servers, read over one lasting connection per server with the replies of the readings taken out; leader CPU from process.cpuUsage() of the leader process',
  'scale on MariaDB: the server\'s count in place of Redis\'s is MariaDB\'s own, SHOW GLOBAL STATUS deltas over the window (every Com_* statement counter but the readings\' own SHOW STATUS, Bytes_sent and Bytes_received); etcd, PostgreSQL and NATS JetStream show only what the clients count (—)',
];

/** The etcd lease TTL the server grants for a request of `askS` seconds. */
async function grantedTtl(url: string, askS: number): Promise<number> {
  const client = new Etcd3({ hosts: url });
  try {
    const lease = await client.leaseClient.leaseGrant({ TTL: askS });
    await client.leaseClient.leaseRevoke({ ID: lease.ID });
    return Number(lease.TTL);
  } finally {
    client.close();
  }
}

async function compare(system: System, options: BenchOptions, progress: Progress): Promise<SystemResult> {
  const result: SystemResult = { name: system.name, label: system.label, timing: system.timing, timeoutMs: system.timeoutMs };
  const group = new Group(system);
  progress(`${system.label} (${system.timing}), ${options.nodes} nodes`);
  const want = (s: string): boolean => options.sections.includes(s as never);
  try {
    await group.start(options.nodes, 60_000);
    if (want('failover')) result.failover = await measureFailover(group, options.kills, progress);
    if (want('stall')) {
      const grid = system.name.startsWith('etcd') ? options.etcdStall : options.stall;
      result.stall = await measureStall(group, { gridMs: grid.gridMs, tries: grid.tries, maxMs: 3 * system.timeoutMs }, progress);
    }
    result.ratio = ratioOf(result.failover, result.stall);
    if (want('resign')) result.resign = await measureResign(group, options.resigns, progress);
    if (want('membership') && system.reportsMembers) result.membership = await measureMembership(group, options.membershipTries, progress);
  } catch (error) {
    result.error = (error as Error).message;
    progress(`  failed: ${result.error}`);
  } finally {
    await group.close();
  }
  return result;
}

/** The `etcd://` store URL of the bench's etcd member, with a key prefix. */
function etcdStoreUrl(etcd: EtcdServer, prefix: string): string {
  return `${etcd.url.replace(/^http:/, 'etcd:')}/${prefix}`;
}

/** Runs the bench. */
export async function runBench(options: BenchOptions, progress: Progress): Promise<BenchResult> {
  const started = Date.now();
  const comparing = options.sections.some((s) => s !== 'scale');
  const needsEtcd = (options.systems.includes('etcd') && comparing) || (options.systems.includes('roster-etcd') && comparing) || (options.sections.includes('scale') && options.scale.some((c) => c.store === 'etcd'));
  const result: BenchResult = {
    schema: 1,
    mode: options.mode,
    startedAt: new Date(started).toISOString(),
    nodes: options.nodes,
    machine: machineInfo(await redisVersion(), needsEtcd ? await etcdVersion() : 'not run'),
    systems: [],
    scale: [],
    notes: NOTES,
  };
  let redis: RedisServer | undefined;
  let hog: CpuHog | undefined;
  let etcd: EtcdServer | undefined;
  let cluster: RedisClusterServers | undefined;
  let sentinel: RedisSentinelServers | undefined;
  let postgres: LocalPostgres | undefined;
  let mariadb: MariaDBServer | undefined;
  let nats: RunningNats | undefined;
  const startMariaDB = async (): Promise<MariaDBServer> => {
    const server = await startMariaDBServer();
    result.machine.mariadb = server.version;
    progress(`MariaDB ${server.version} at ${server.url}`);
    return server;
  };
  const startNats = async (): Promise<RunningNats> => {
    const server = await startNatsServer();
    result.machine.nats = server.version;
    progress(`nats-server ${server.version} at ${server.url('')}`);
    return server;
  };
  const startPostgres = async (): Promise<LocalPostgres> => {
    const server = await LocalPostgres.start();
    result.machine.postgres = await server.sql('SHOW server_version');
    progress(`PostgreSQL ${result.machine.postgres} at ${server.host}:${server.port}`);
    return server;
  };
  try {
    if (comparing) {
      // One redis-server for Roster and redis-leader (the Sentinel deployment is roster-sentinel's own).
      redis = options.systems.some((s) => s === 'roster' || s === 'roster-renew' || s === 'redis-leader') ? await startRedisServer() : undefined;
      if (redis) progress(`redis-server ${result.machine.redis} at ${redis.url}`);
      const systems: System[] = [];
      const runId = started.toString(36);
      if (options.systems.includes('roster')) {
        for (const [i, t] of options.rosterTimings) systems.push(rosterSystem({ storeUrl: redis!.url, group: `bench-${runId}-${i}-${t}`, intervalMs: i, timeoutMs: t }));
      }
      const [i, t] = options.rosterTimings[0]!;
      if (options.systems.includes('roster-renew')) {
        for (const r of options.rosterRenewDeadlines) systems.push(rosterSystem({ storeUrl: redis!.url, group: `bench-${runId}-${i}-${t}-r${r}`, intervalMs: i, timeoutMs: t, renewDeadlineMs: r }));
      }
      if (options.systems.includes('roster-sentinel')) {
        sentinel = await startRedisSentinel();
        progress(`Redis Sentinel (a master, 2 replicas, 3 sentinels) at ${sentinel.url}`);
        systems.push(rosterSystem({ storeUrl: sentinel.url, group: `bench-${runId}-sentinel-${i}-${t}`, intervalMs: i, timeoutMs: t, storeKind: 'sentinel' }));
      }
      if (options.systems.includes('roster-postgres')) {
        postgres = await startPostgres();
        systems.push(rosterSystem({ storeUrl: postgres.url, group: `bench-${runId}-pg-${i}-${t}`, intervalMs: i, timeoutMs: t, storeKind: 'postgres' }));
      }
      if (options.systems.includes('roster-mariadb')) {
        mariadb = await startMariaDB();
        systems.push(rosterSystem({ storeUrl: mariadb.url, group: `bench-${runId}-mariadb-${i}-${t}`, intervalMs: i, timeoutMs: t, storeKind: 'mariadb' }));
      }
      if (options.systems.includes('roster-nats')) {
        nats = await startNats();
        systems.push(rosterSystem({ storeUrl: nats.url(`bench-${runId}`), group: `bench-${runId}-nats-${i}-${t}`, intervalMs: i, timeoutMs: t, storeKind: 'nats' }));
      }
      if (options.systems.includes('redis-leader')) systems.push(redisLeaderSystem({ url: redis!.url, key: `bench-${runId}`, ttlMs: t, waitMs: i }));
      if (needsEtcd) {
        etcd = await startEtcd();
        progress(`etcd ${result.machine.etcd} at ${etcd.url}`);
      }
      if (etcd && options.systems.includes('etcd')) {
        const ask = Math.max(1, Math.ceil(t / 1000));
        const ttlS = await grantedTtl(etcd.url, ask);
        progress(`etcd: a lease of ${ask} s is granted ${ttlS} s`);
        systems.push(etcdSystem({ url: etcd.url, key: `bench-${runId}`, ttlS, requestedTtlS: ask, waitMs: i }));
      }
      // Roster on the same etcd member, through EtcdKV: the store's own faults aside, what etcd costs the protocol.
      if (etcd && options.systems.includes('roster-etcd')) {
        systems.push(rosterSystem({ storeUrl: etcdStoreUrl(etcd, `bench-${runId}`), storeKind: 'etcd', group: `bench-${runId}-etcd-${i}-${t}`, intervalMs: i, timeoutMs: t }));
      }
      for (const system of systems) result.systems.push(await compare(system, options, progress));
    }
    if (options.sections.includes('scale') && options.hog) {
      hog = startCpuHog(options.hog);
      progress(`scale under a CPU hog of ${hog.loops} busy loop(s) at niceness 0 (load average ${hog.load().atStart} at its start)`);
    }
    if (options.sections.includes('scale')) {
      const redisCases = options.scale.filter((x) => x.store === 'redis');
      if (redisCases.length > 0) {
        redis ??= await startRedisServer();
        for (const c of redisCases) {
          result.scale.push(await runScaleCase(c, { url: redis.url, ports: [redis.port], perWorker: 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 20 * c.members }, progress));
        }
      }
      await redis?.stop();
      redis = undefined;
      const postgresCases = options.scale.filter((x) => x.store === 'postgres');
      if (postgresCases.length > 0) {
        postgres ??= await startPostgres();
        for (const c of postgresCases) {
          result.scale.push(await runScaleCase(c, { url: postgres.url, ports: [], perWorker: 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 20 * c.members }, progress));
        }
        await postgres.destroy();
        postgres = undefined;
      }
      const mariadbCases = options.scale.filter((x) => x.store === 'mariadb');
      if (mariadbCases.length > 0) {
        mariadb ??= await startMariaDB();
        const server = mariadb;
        for (const c of mariadbCases) {
          result.scale.push(await runScaleCase(c, { url: server.url, ports: [], serverCounters: () => mariadbCounters(server), perWorker: 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 20 * c.members }, progress));
        }
        await mariadb.stop();
        mariadb = undefined;
      }
      const natsCases = options.scale.filter((x) => x.store === 'nats');
      if (natsCases.length > 0) {
        nats ??= await startNats();
        for (const c of natsCases) {
          result.scale.push(await runScaleCase(c, { url: nats.url(`scale-${started.toString(36)}-${c.members}`), ports: [], perWorker: 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 20 * c.members }, progress));
        }
        await nats.stop();
        nats = undefined;
      }
      const sentinelCases = options.scale.filter((x) => x.store === 'sentinel');
      if (sentinelCases.length > 0) {
        sentinel ??= await startRedisSentinel();
        progress(`Redis Sentinel at ${sentinel.url}`);
        for (const c of sentinelCases) {
          const ports = [await sentinel.masterPort()];
          result.scale.push(await runScaleCase(c, { url: sentinel.url, ports, perWorker: 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 20 * c.members }, progress));
        }
        await sentinel.stop();
        sentinel = undefined;
      }
      const etcdCases = options.scale.filter((x) => x.store === 'etcd');
      if (etcdCases.length > 0) {
        etcd ??= await startEtcd();
        progress(`etcd at ${etcd.url} (scale, through EtcdKV)`);
        for (const c of etcdCases) {
          result.scale.push(await runScaleCase(c, { url: etcdStoreUrl(etcd, `scale-${started.toString(36)}`), ports: [], perWorker: 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 20 * c.members }, progress));
        }
      }
      await etcd?.stop();
      etcd = undefined;
      const clusterCases = options.scale.filter((x) => x.store === 'cluster');
      if (clusterCases.length > 0) {
        cluster = await startRedisCluster(3);
        progress(`Redis Cluster of 3 masters at ${cluster.url}`);
        for (const c of clusterCases) {
          result.scale.push(await runScaleCase(c, { url: cluster.url, ports: cluster.masters.map((m) => m.port), perWorker: c.members > 2000 ? 1000 : 250, windowMs: Math.max(5000, 10 * c.intervalMs), convergeLimitMs: 30_000 + 10 * c.members }, progress));
        }
      }
    }
  } finally {
    if (hog) progress(`CPU hog of ${hog.loops} loop(s) ended (load average ${hog.load().now})`);
    await hog?.stop();
    await Promise.allSettled([redis?.stop(), etcd?.stop(), cluster?.stop(), sentinel?.stop(), postgres?.destroy(), mariadb?.stop(), nats?.stop()]);
    await killAll();
    result.machine.loadEnd = currentLoad();
    result.finishedAt = new Date().toISOString();
    result.durationS = Math.round((Date.now() - started) / 1000);
  }
  return result;
}

/**
 * `redis-server` over TLS for tests: one server listening on a plain-text port and a TLS port,
 * and a Redis Cluster whose clients and cluster bus speak only TLS (`--tls-cluster yes`). The
 * certificates come from {@link makeCertificates}; clients must present a certificate signed by
 * its CA (`--tls-auth-clients yes`) unless told otherwise.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freeLoopbackPort, ServerProcess } from '@roster/testing';
import { Redis, type RedisOptions } from 'ioredis';
import type { TestCertificates } from './certificates.js';
import { REDIS_HOST, redisCliBinary, redisServerBinary } from './redis.js';

/** A running TLS `redis-server`. */
export interface TlsRedisServer {
  /** `rediss://127.0.0.1:<tlsPort>`. */
  readonly url: string;
  readonly tlsPort: number;
  /** The plain-text port of the same server (for administration, and "wrong port" tests). */
  readonly plainPort: number;
  /** Runs one command over the plain-text port, e.g. `['ACL', 'SETUSER', …]`. */
  admin(args: string[]): Promise<unknown>;
  stop(): Promise<void>;
}

/** A running Redis Cluster over TLS. */
export interface TlsRedisCluster {
  /** The seed nodes, `rediss://127.0.0.1:<port>,…`. */
  readonly url: string;
  readonly ports: readonly number[];
  /** Runs one command on every master (over TLS, with the client certificate). */
  adminAll(args: string[]): Promise<void>;
  stop(): Promise<void>;
}

/** Options of {@link startTlsRedis}. */
export interface StartTlsRedisOptions {
  /** The server certificate and key. @defaultValue the valid server certificate */
  readonly cert?: string;
  readonly key?: string;
  /** Require a client certificate signed by the CA. @defaultValue true */
  readonly authClients?: boolean;
}

/** A free port `p` (with `p + 10000` free too, for a cluster bus), never the same twice. */
function freePort(): Promise<number> {
  return freeLoopbackPort({ alsoFree: [10_000] });
}

function tlsArgs(certs: TestCertificates, options: StartTlsRedisOptions): string[] {
  return [
    '--tls-cert-file', options.cert ?? certs.serverCert,
    '--tls-key-file', options.key ?? certs.serverKey,
    '--tls-ca-cert-file', certs.caCert,
    '--tls-auth-clients', options.authClients === false ? 'no' : 'yes',
  ];
}

/**
 * Starts a `redis-server` with `args` on @roster/testing's process fixture (a process group of its
 * own, SIGKILLed when the test process exits) and resolves once `ready()` answers true.
 */
export async function spawnServer(args: string[], ready: () => Promise<boolean>): Promise<ServerProcess> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('needs redis-server on PATH (or ROSTER_REDIS_SERVER)');
  const server = new ServerProcess(binary, `redis-server ${args.join(' ')}`);
  await server.start(args, ready, 15_000);
  return server;
}

/** One command on a fresh client, never retried. */
export async function once(options: RedisOptions, args: string[]): Promise<unknown> {
  const client = new Redis({ ...options, lazyConnect: true, connectTimeout: 3000, commandTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return await client.call(args[0]!, ...args.slice(1));
  } finally {
    client.disconnect();
  }
}

/** The client TLS options of a test client holding the CA and the client certificate. */
export async function clientTls(certs: TestCertificates): Promise<{ ca: string; cert: string; key: string }> {
  return { ca: await readFile(certs.caCert, 'utf8'), cert: await readFile(certs.clientCert, 'utf8'), key: await readFile(certs.clientKey, 'utf8') };
}

/** Starts one `redis-server` with a plain-text port and a TLS port. */
export async function startTlsRedis(certs: TestCertificates, options: StartTlsRedisOptions = {}): Promise<TlsRedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'roster-tls-redis-'));
  const plainPort = await freePort();
  const tlsPort = await freePort();
  const admin = (args: string[]): Promise<unknown> => once({ host: REDIS_HOST, port: plainPort }, args);
  let server: ServerProcess;
  try {
    server = await spawnServer(
      ['--port', String(plainPort), '--tls-port', String(tlsPort), '--bind', REDIS_HOST, '--dir', dir, '--save', '', '--appendonly', 'no', ...tlsArgs(certs, options)],
      async () => (await admin(['PING'])) === 'PONG',
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `rediss://${REDIS_HOST}:${tlsPort}`,
    tlsPort,
    plainPort,
    admin,
    async stop() {
      await server.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a Redis Cluster of `n` masters over TLS only (`--port 0 --tls-port p --tls-cluster yes`),
 * created with `redis-cli --tls --cluster create`.
 */
export async function startTlsRedisCluster(certs: TestCertificates, n = 3): Promise<TlsRedisCluster> {
  const cli = redisCliBinary();
  if (!cli) throw new Error('needs redis-cli on PATH (or ROSTER_REDIS_CLI)');
  const dir = await mkdtemp(join(tmpdir(), 'roster-tls-cluster-'));
  const tls = await clientTls(certs);
  const children: ServerProcess[] = [];
  const ports: number[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  const on = (port: number, args: string[]): Promise<unknown> => once({ host: REDIS_HOST, port, tls: { ...tls, servername: 'localhost' } }, args);
  try {
    for (let i = 0; i < n; i++) ports.push(await freePort());
    await Promise.all(
      ports.map(async (port) => {
        const args = [
          '--port', '0', '--tls-port', String(port), '--tls-cluster', 'yes', '--bind', REDIS_HOST, '--dir', dir,
          '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '3000',
          '--cluster-require-full-coverage', 'no', '--save', '', '--appendonly', 'no', ...tlsArgs(certs, {}),
        ];
        children.push(await spawnServer(args, async () => (await on(port, ['PING'])) === 'PONG'));
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const args = ['--tls', '--cacert', certs.caCert, '--cert', certs.clientCert, '--key', certs.clientKey, '--cluster', 'create', ...ports.map((p) => `${REDIS_HOST}:${p}`), '--cluster-replicas', '0', '--cluster-yes'];
      const child = spawn(cli, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`redis-cli --cluster create exited with ${code}:\n${output}`))));
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const infos = await Promise.all(ports.map((port) => on(port, ['CLUSTER', 'INFO']).catch(() => '')));
      if (infos.every((info) => /cluster_state:ok/.test(String(info)) && new RegExp(`cluster_known_nodes:${n}\\b`).test(String(info)))) break;
      if (Date.now() > deadline) throw new Error('the TLS cluster did not report cluster_state:ok');
      await delay(200);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: ports.map((port) => `rediss://${REDIS_HOST}:${port}`).join(','),
    ports,
    async adminAll(args) {
      await Promise.all(ports.map((port) => on(port, args)));
    },
    stop,
  };
}

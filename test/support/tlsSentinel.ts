/**
 * A Redis Sentinel deployment that speaks only TLS, with credentials everywhere, for tests: a
 * master and its replicas (`--port 0 --tls-port p`, replication over TLS), each with a password
 * (`requirepass`, the sentinels' and replicas' login) and an ACL user for Roster; and sentinels on
 * TLS ports only, with a password of their own (`requirepass`, also what they use with each other)
 * and an ACL user for clients. Every TLS peer must present a certificate signed by the test CA.
 * The certificates come from {@link makeCertificates}.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freeLoopbackPort, waitFor, type ServerProcess } from '@roster/testing';
import type { TestCertificates } from './certificates.js';
import { REDIS_HOST } from './redis.js';
import { clientTls, once, spawnServer } from './tlsRedis.js';

/** The credentials of a {@link TlsSentinel}. */
export const TLS_SENTINEL_CREDENTIALS = {
  /** Roster's ACL user on the master and replicas. */
  user: 'roster',
  password: 'r0ster:pw@',
  /** The data servers' `requirepass` (the default user's), used by the sentinels and the replicas. */
  dataPassword: 'data-pw',
  /** The sentinels' `requirepass`, also what they use with each other (`sentinel sentinel-pass`). */
  sentinelPassword: 'sentinel-pw',
  /** The sentinels' ACL user for clients. */
  sentinelUser: 'watcher',
  sentinelUserPassword: 'w&tch/pw',
} as const;

/** A running TLS Sentinel deployment. */
export interface TlsSentinel {
  /**
   * `rediss+sentinel://roster:…@127.0.0.1:s1,…/roster?sentinelUsername=watcher&sentinelPassword=…`:
   * the master's ACL user in the user info, the sentinels' in the query.
   */
  readonly url: string;
  /** The same without the sentinels' credentials. */
  readonly urlWithoutSentinelCredentials: string;
  readonly masterPort: number;
  readonly sentinelPorts: readonly number[];
  stop(): Promise<void>;
}

const MASTER_NAME = 'roster';

/** Starts a master, `replicas` replicas and `sentinels` sentinels, all TLS only; resolves once the sentinels know them all. */
export async function startTlsSentinel(certs: TestCertificates, { replicas = 1, sentinels = 3 } = {}): Promise<TlsSentinel> {
  const c = TLS_SENTINEL_CREDENTIALS;
  const dir = await mkdtemp(join(tmpdir(), 'roster-tls-sentinel-'));
  const tls = { ...(await clientTls(certs)), servername: 'localhost' };
  const children: ServerProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.map((child) => child.kill()));
    await rm(dir, { recursive: true, force: true });
  };
  const tlsArgs = ['--tls-cert-file', certs.serverCert, '--tls-key-file', certs.serverKey, '--tls-ca-cert-file', certs.caCert, '--tls-auth-clients', 'yes', '--tls-replication', 'yes'];
  const onData = (port: number, args: string[]): Promise<unknown> => once({ host: REDIS_HOST, port, tls, password: c.dataPassword }, args);
  const onSentinel = (port: number, args: string[]): Promise<unknown> => once({ host: REDIS_HOST, port, tls, password: c.sentinelPassword }, args);
  try {
    const ports: number[] = [];
    for (let i = 0; i <= replicas; i++) ports.push(await freeLoopbackPort());
    const [masterPort, ...replicaPorts] = ports as [number, ...number[]];
    // prettier-ignore
    const dataArgs = (port: number): string[] => [
      '--port', '0', '--tls-port', String(port), '--bind', REDIS_HOST, '--dir', dir, '--dbfilename', `dump-${port}.rdb`,
      '--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0', ...tlsArgs,
      '--requirepass', c.dataPassword, '--masterauth', c.dataPassword, '--user', c.user, 'on', `>${c.password}`, '~*', '&*', '+@all',
    ];
    children.push(await spawnServer(dataArgs(masterPort), async () => (await onData(masterPort, ['PING'])) === 'PONG'));
    for (const port of replicaPorts) {
      children.push(await spawnServer([...dataArgs(port), '--replicaof', REDIS_HOST, String(masterPort)], async () => (await onData(port, ['PING'])) === 'PONG'));
    }
    await waitFor(async () => new RegExp(`connected_slaves:${replicas}\\b`).test(String(await onData(masterPort, ['INFO', 'replication']))), {
      what: `${replicas} replicas to connect to the TLS master on port ${masterPort}`,
      timeoutMs: 15_000,
    });

    const sentinelPorts: number[] = [];
    for (let i = 0; i < sentinels; i++) sentinelPorts.push(await freeLoopbackPort());
    await Promise.all(
      sentinelPorts.map(async (port) => {
        const file = join(dir, `sentinel-${port}.conf`);
        // prettier-ignore
        await writeFile(file, [
          'port 0', `tls-port ${port}`, `bind ${REDIS_HOST}`, `dir ${dir}`, 'daemonize no',
          `tls-cert-file ${certs.serverCert}`, `tls-key-file ${certs.serverKey}`, `tls-ca-cert-file ${certs.caCert}`,
          'tls-auth-clients yes', 'tls-replication yes',
          `requirepass ${c.sentinelPassword}`, `sentinel sentinel-pass ${c.sentinelPassword}`,
          `user ${c.sentinelUser} on >${c.sentinelUserPassword} allchannels +@all`,
          `sentinel monitor ${MASTER_NAME} ${REDIS_HOST} ${masterPort} ${Math.floor(sentinels / 2) + 1}`,
          `sentinel auth-pass ${MASTER_NAME} ${c.dataPassword}`,
          `sentinel down-after-milliseconds ${MASTER_NAME} 1000`,
          `sentinel failover-timeout ${MASTER_NAME} 3000`,
          '',
        ].join('\n'));
        children.push(await spawnServer([file, '--sentinel'], async () => (await onSentinel(port, ['PING'])) === 'PONG'));
      }),
    );
    await waitFor(
      async () => {
        for (const port of sentinelPorts) {
          const flat = (await onSentinel(port, ['SENTINEL', 'MASTER', MASTER_NAME])) as string[];
          const info = Object.fromEntries(flat.flatMap((v, i) => (i % 2 === 0 ? [[v, flat[i + 1]]] : [])));
          if (info['flags'] !== 'master' || Number(info['num-slaves']) !== replicas || Number(info['num-other-sentinels']) !== sentinels - 1) return false;
        }
        return true;
      },
      { what: `the TLS sentinels on ports ${sentinelPorts.join(', ')} to know the master, ${replicas} replicas and each other`, timeoutMs: 30_000 },
    );
    const base = `rediss+sentinel://${c.user}:${encodeURIComponent(c.password)}@${sentinelPorts.map((p) => `${REDIS_HOST}:${p}`).join(',')}/${MASTER_NAME}`;
    return {
      url: `${base}?sentinelUsername=${c.sentinelUser}&sentinelPassword=${encodeURIComponent(c.sentinelUserPassword)}`,
      urlWithoutSentinelCredentials: base,
      masterPort,
      sentinelPorts,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * TLS and ACL on real servers: `rediss://` with a self-signed CA and mutual TLS on one server and
 * on a 3-master Redis Cluster over TLS, the minimal ACL rule of docs/security.md, and the one-line
 * exit 2 of every access problem at start.
 */
import { readFile } from 'node:fs/promises';
import { StoreAccessError } from '@roster/kv-adapter';
import { RedisKV } from '@roster/kv-adapter/redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import { killAll as killAllClusterTests, startClusterTest } from './support/clusterTest.js';
import { killAllNodes, runRoster, startRoster, until, type RosterNodeProcess } from './support/rosterNode.js';
import { clientTls, startTlsRedis, startTlsRedisCluster, type TlsRedisCluster, type TlsRedisServer } from './support/tlsRedis.js';

const PASSWORD = 'pw-7f3a9c1e';
const KEY = 'tlsacl';
const ENV = 'dev';

/** The documented rule (docs/security.md) for the namespace `roster/<key>/<env>/`. */
function minimalRule(key: string, env: string): string[] {
  return [
    'on', `>${PASSWORD}`, 'resetkeys', `~roster/${key}/${env}/*`, 'resetchannels', '-@all',
    '+get', '+set', '+del', '+getdel', '+getrange', '+eval', '+evalsha', '+time', '+strlen', '+append', '+info', '+cluster|slots',
  ];
}

let certs: TestCertificates;
beforeAll(async () => {
  certs = await makeCertificates();
});
afterAll(async () => {
  await certs?.remove();
});
afterEach(async () => {
  await killAllNodes();
  await killAllClusterTests();
});

function tlsFlags(ca = certs.caCert): string[] {
  return ['--tls-ca', ca, '--tls-cert', certs.clientCert, '--tls-key', certs.clientKey];
}

function converged(nodes: RosterNodeProcess[]): boolean {
  const leader = nodes[0]!.leader;
  const ids = nodes.map((p) => p.events[0]?.id).sort();
  return leader != null && nodes.every((p) => p.leader?.id === leader.id && p.members.join(',') === ids.join(','));
}

/**
 * "At once" means well before the connect timeout: these runs allow 20 s to connect and expect the
 * refusal within 15 s (process start included), which a retry loop waiting out the timeout cannot meet.
 */
const AT_ONCE = { connectTimeoutMs: 20_000, withinMs: 15_000 } as const;

/** Runs `roster node` to its end and checks the one-line exit 2 within `withinMs`. */
async function expectRefusedAtStart(args: string[], pattern: RegExp, { connectTimeoutMs, withinMs }: { connectTimeoutMs: number; withinMs: number } = AT_ONCE): Promise<string> {
  const started = performance.now();
  const { exit, stdout, stderr } = await runRoster(['node', '--json', '--group', KEY, '--env', ENV, '--connect-timeout', String(connectTimeoutMs), ...args], 60_000);
  const tookMs = performance.now() - started;
  expect(exit.code, stderr).toBe(2);
  expect(stdout).toBe('');
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toContain(PASSWORD);
  expect(tookMs).toBeLessThan(withinMs);
  return lines[0]!;
}

describe('one Redis server over TLS with an ACL user', () => {
  let server: TlsRedisServer;
  let expired: TlsRedisServer;
  beforeAll(async () => {
    [server, expired] = await Promise.all([startTlsRedis(certs), startTlsRedis(certs, { cert: certs.expiredCert, key: certs.expiredKey })]);
    await server.admin(['ACL', 'SETUSER', 'roster', ...minimalRule(KEY, ENV)]);
    await server.admin(['ACL', 'SETUSER', 'reader', 'on', `>${PASSWORD}`, 'resetkeys', `%R~roster/${KEY}/${ENV}/*`, '-@all', '+get', '+eval', '+evalsha', '+time', '+info']);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), expired?.stop()]);
  });
  const url = (user = 'roster', password = PASSWORD): string => `rediss://${user}:${password}@127.0.0.1:${server.tlsPort}`;

  it('three `roster node` processes converge over rediss:// with mutual TLS and a user holding exactly the documented rule', async () => {
    const nodes = [0, 1, 2].map((i) =>
      startRoster('node', '--json', '--store', url(), '--group', KEY, '--env', ENV, '--id', `tls-${i}`, '--interval', '200', '--timeout', '1000', ...tlsFlags()),
    );
    await until(() => converged(nodes), 30_000, () => nodes.map((p) => p.describe()).join('\n'));
    for (const p of nodes) expect(p.stderr).not.toContain(PASSWORD);
  });

  it('cluster-test instances meet over rediss:// with --tls-ca, --tls-cert and --tls-key', async () => {
    await server.admin(['ACL', 'SETUSER', 'ct', ...minimalRule('ct', 'dev')]);
    const store = url('ct');
    const start = (id: string, n: number) =>
      startClusterTest('-k', 'ct', '-e', 'dev', '-i', id, '-n', String(n), '-r', store, '--interval', '200', '--timeout', '1000', ...tlsFlags());
    const all = [start('a', 2), start('b', 1)];
    await Promise.all(all.map((p) => p.waitFor(() => p.last()?.total === 3, 30_000, 'total 3')));
    expect(all[0]!.last()).toEqual({ index: 0, threads: 2, total: 3 });
  });

  it('takes the TLS files from ROSTER_TLS_CA, ROSTER_TLS_CERT and ROSTER_TLS_KEY when the flags are absent', async () => {
    const { exit, stderr } = await runEnv(
      ['primary', 'get', '--store', url(), '--group', KEY, '--env', ENV, '--type', 'billing'],
      { ROSTER_TLS_CA: certs.caCert, ROSTER_TLS_CERT: certs.clientCert, ROSTER_TLS_KEY: certs.clientKey },
    );
    expect(exit, stderr).toBe(3); // connected; no primary of that type
  });

  it('a server certificate from another CA: one line, exit 2, at once (no retry loop)', async () => {
    const line = await expectRefusedAtStart(['--store', url(), ...tlsFlags(certs.otherCaCert)], /^roster node: the store refused access: .*TLS: .*certificate/);
    expect(line).toContain('SELF_SIGNED_CERT_IN_CHAIN');
  });

  it('an expired server certificate: one line, exit 2, at once', async () => {
    const line = await expectRefusedAtStart(['--store', `rediss://127.0.0.1:${expired.tlsPort}`, ...tlsFlags()], /refused access: .*certificate has expired/);
    expect(line).toContain('CERT_HAS_EXPIRED');
  });

  it('no client certificate where the server requires one: one line, exit 2, at once', async () => {
    await expectRefusedAtStart(['--store', url(), '--tls-ca', certs.caCert], /refused access: .*TLS: .*certificate required/);
  });

  it('rediss:// to a plain-text port: one line, exit 2, within the connect timeout', async () => {
    await expectRefusedAtStart(['--store', `rediss://127.0.0.1:${server.plainPort}`, ...tlsFlags()], /cannot reach the store: .*not ready within 3000 ms: no answer to the TLS handshake/, { connectTimeoutMs: 3000, withinMs: 20_000 });
  });

  it('a wrong password: one line, exit 2, at once, the password nowhere', async () => {
    await expectRefusedAtStart(['--store', url('roster', 'not-the-password'), ...tlsFlags()], /refused access: .*WRONGPASS/);
  });

  it('a user without write permission: one line naming NOPERM, exit 2', async () => {
    await expectRefusedAtStart(['--store', url('reader'), ...tlsFlags()], /refused access: roster\/tlsacl\/dev\/probe\/\S+: .*NOPERM/);
  });

  it('a permission lost at run time is handled as an unavailable store: the nodes keep running, and they converge again when it is back', async () => {
    await server.admin(['ACL', 'SETUSER', 'runtime', ...minimalRule('runtime', ENV)]);
    const nodes = [0, 1, 2].map((i) =>
      startRoster('node', '--json', '--store', url('runtime'), '--group', 'runtime', '--env', ENV, '--id', `rt-${i}`, '--interval', '200', '--timeout', '1000', ...tlsFlags()),
    );
    await until(() => converged(nodes), 30_000, () => nodes.map((p) => p.describe()).join('\n'));
    await server.admin(['ACL', 'SETUSER', 'runtime', '-set', '-eval', '-evalsha', '-append']);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    for (const p of nodes) expect(p.alive, p.describe()).toBe(true);
    await server.admin(['ACL', 'SETUSER', 'runtime', ...minimalRule('runtime', ENV)]);
    const before = nodes.map((p) => p.events.length);
    await until(() => converged(nodes) && nodes.every((p, i) => p.events.length >= before[i]!), 30_000, () => nodes.map((p) => p.describe()).join('\n'));
    for (const p of nodes) {
      expect(p.alive, p.describe()).toBe(true);
      // Reported as the store being unavailable, never as a crash.
      expect(p.stderr).toMatch(/store unavailable: .*NOPERM/);
      expect(p.stderr).not.toMatch(/ERROR|Unhandled|TypeError/);
    }
  });
});

describe('a 3-master Redis Cluster over TLS', () => {
  let cluster: TlsRedisCluster;
  beforeAll(async () => {
    cluster = await startTlsRedisCluster(certs);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('RedisKV connects with a CA, a client certificate and key and a server name, and serves keys of every slot', async () => {
    const kv = await RedisKV.connect({ url: cluster.url, tls: { ...(await clientTls(certs)), servername: 'localhost' }, connectTimeoutMs: 10_000 });
    try {
      expect(kv.mode).toBe('cluster');
      for (let i = 0; i < 20; i++) await kv.set(`roster/k/e/key ${i}`, String(i));
      for (let i = 0; i < 20; i++) expect(await kv.get(`roster/k/e/key ${i}`)).toBe(String(i));
      expect((await kv.compareAndSet('roster/k/e/leader', null, 'a')).swapped).toBe(true);
      expect(await kv.time()).toBeGreaterThan(0);
    } finally {
      await kv.close();
    }
  });

  it('RedisKV refuses a server certificate from another CA at once, as refused access, not after the connect timeout', async () => {
    // ioredis refreshes the slot table over connections whose errors it ignores; RedisKV hears the
    // nodes' sockets itself, so the verification failure is not lost in "Connection is closed.".
    const started = performance.now();
    const wrong = RedisKV.connect({ url: cluster.url, tls: { ...(await clientTls(certs)), ca: await readFile(certs.otherCaCert, 'utf8') }, connectTimeoutMs: AT_ONCE.connectTimeoutMs });
    await expect(wrong).rejects.toSatisfy((error) => StoreAccessError.is(error) && /SELF_SIGNED_CERT_IN_CHAIN/.test(error.message));
    expect(performance.now() - started).toBeLessThan(AT_ONCE.withinMs);
  });

  it('a server certificate from another CA: one line, exit 2, at once (no retry loop), as on one server', async () => {
    const line = await expectRefusedAtStart(['--store', cluster.url, ...tlsFlags(certs.otherCaCert)], /^roster node: the store refused access: .*TLS: .*certificate/);
    expect(line).toContain('SELF_SIGNED_CERT_IN_CHAIN');
  });

  it('no client certificate where the cluster requires one: one line, exit 2, at once', async () => {
    await expectRefusedAtStart(['--store', cluster.url, '--tls-ca', certs.caCert], /refused access: .*TLS: .*certificate required/);
  });
});

async function runEnv(args: string[], env: Record<string, string>): Promise<{ exit: number | null; stderr: string }> {
  const { spawn } = await import('node:child_process');
  const { ROSTER_BIN } = await import('./support/rosterNode.js');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [ROSTER_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('exit', (code) => resolve({ exit: code, stderr }));
  });
}

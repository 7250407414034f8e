import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import { describeFigures, runElectionScenario, SCENARIO_I, SCENARIO_T } from './support/electionScenario.js';
import { killAllNodes, runRoster, startRoster } from './support/rosterNode.js';
import { startTlsSentinel, TLS_SENTINEL_CREDENTIALS, type TlsSentinel } from './support/tlsSentinel.js';

/**
 * `roster node --store rediss+sentinel://…` on a Sentinel deployment that speaks only TLS (client
 * certificates required), whose sentinels have credentials of their own (`requirepass`, and the
 * ACL user Roster logs in as, given in the URL's query) apart from the master's ACL user (the
 * URL's user info).
 */
let certs: TestCertificates;
let sentinel: TlsSentinel;

beforeAll(async () => {
  certs = await makeCertificates();
  sentinel = await startTlsSentinel(certs);
}, 60_000);
afterAll(async () => {
  await killAllNodes();
  await sentinel?.stop();
  await certs?.remove();
});
afterEach(killAllNodes);

const tlsFlags = (): string[] => ['--tls-ca', certs.caCert, '--tls-cert', certs.clientCert, '--tls-key', certs.clientKey];

describe('roster node on a TLS Sentinel deployment with sentinel credentials (rediss+sentinel://), 5 processes at I=100/T=500', () => {
  it('one leader; a SIGKILLed leader is replaced within T + 2I; a join is seen by all; resign and a graceful stop hand over', async () => {
    const start = (id: string): ReturnType<typeof startRoster> =>
      startRoster('node', '--json', '--store', sentinel.url, '--group', 'tlss', '--env', 'test', '--id', id, '--interval', String(SCENARIO_I), '--timeout', String(SCENARIO_T), ...tlsFlags());
    const figures = await runElectionScenario(start, 't');
    console.info(describeFigures('TLS Sentinel with sentinel credentials', figures));
  });

  it('sentinel credentials missing or wrong, or a sentinel certificate from a CA not trusted: `roster node` exits 2 at once, access refused, no password printed', async () => {
    const args = (url: string, tls: string[]): string[] => ['node', '--store', url, '--group', 'tlss-refused', '--env', 'test', '--id', 'x', '--interval', '100', '--timeout', '500', ...tls];
    const cases = {
      'no sentinel credentials': args(sentinel.urlWithoutSentinelCredentials, tlsFlags()),
      'a wrong sentinel password': args(sentinel.url.replace(/sentinelPassword=[^&]*/, 'sentinelPassword=wrong'), tlsFlags()),
      'a CA that did not sign the sentinels': args(sentinel.url, ['--tls-ca', certs.otherCaCert, '--tls-cert', certs.clientCert, '--tls-key', certs.clientKey]),
    };
    const secrets = [TLS_SENTINEL_CREDENTIALS.password, encodeURIComponent(TLS_SENTINEL_CREDENTIALS.password), TLS_SENTINEL_CREDENTIALS.sentinelUserPassword, encodeURIComponent(TLS_SENTINEL_CREDENTIALS.sentinelUserPassword)];
    const runs = await Promise.all(
      Object.entries(cases).map(async ([name, argv]) => {
        const started = Date.now();
        const run = await runRoster(argv);
        return { name, run, ms: Date.now() - started };
      }),
    );
    for (const { name, run, ms } of runs) {
      expect(run.exit.code, `${name}: ${run.stderr}`).toBe(2);
      expect(run.stderr, name).toMatch(/refused access: .*(NOAUTH|WRONGPASS|TLS: .*CERT)/);
      // At once, not after the 5 s connect timeout (Node.js start included).
      expect(ms, `${name}: ${run.stderr}`).toBeLessThan(4500);
      for (const secret of secrets) expect(run.stdout + run.stderr, name).not.toContain(secret);
    }
    console.info(runs.map(({ name, run, ms }) => `${name} (${ms} ms): ${run.stderr.trim().split('\n').at(-1)}`).join('\n'));
  }, 30_000);
});

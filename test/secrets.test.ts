/**
 * Secrets stay secret: a redis-server with a marker password, real `roster node`, `roster primary`
 * and `cluster-test` processes (and some with a wrong password), and every byte they print or
 * serve (stdout, stderr with debug logs, `/`, `/status.json`, `/metrics`, `/healthz`, `/readyz`,
 * `/events` as NDJSON and as Server-Sent Events, a 404) searched for the marker.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAllNodes, runRoster, startRoster, startRosterWithEnv, until, type RosterNodeProcess, statusUrl } from './support/rosterNode.js';
import { killAll, startClusterTest } from './support/clusterTest.js';

const MARKER = `Pw${Math.random().toString(36).slice(2, 10)}Secret`;
const WRONG = `Wr${Math.random().toString(36).slice(2, 10)}Guess`;
const I = 200;
const T = 1000;
const WAIT = 20_000;

let redis: RedisTestServer;
let url: string;
let wrongUrl: string;
let bareUrl: string;
let secretsDir: string;

beforeAll(async () => {
  redis = await startRedis({ args: ['--requirepass', MARKER] });
  url = `redis://:${MARKER}@127.0.0.1:${redis.port}`;
  wrongUrl = `redis://:${WRONG}@127.0.0.1:${redis.port}`;
  bareUrl = `redis://127.0.0.1:${redis.port}`;
  secretsDir = mkdtempSync(join(tmpdir(), 'roster-secrets-'));
});
afterEach(async () => {
  await killAllNodes();
  await killAll();
});
afterAll(async () => {
  await killAllNodes();
  await killAll();
  await redis?.stop();
  if (secretsDir) rmSync(secretsDir, { recursive: true, force: true });
});

/** A file holding `text`, as a mounted secret would. */
function secretFile(name: string, text: string): string {
  const path = join(secretsDir, name);
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

/** The status page URL a node logs on stderr at start. */
/** Reads `url` for up to `ms` (a stream is cut after that), as text. */
async function scrape(target: string, headers: Record<string, string> = {}, ms = 1500): Promise<string> {
  const response = await fetch(target, { headers, signal: AbortSignal.timeout(ms) });
  let text = `${response.status} ${JSON.stringify([...response.headers])}\n`;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The stream was cut by the timeout: what was read is kept.
  }
  return text;
}

/** Everything the status page of `base` serves. */
async function scrapeAll(base: string): Promise<string[]> {
  return [
    await scrape(base),
    await scrape(`${base}status.json`),
    await scrape(`${base}metrics`),
    await scrape(`${base}healthz`),
    await scrape(`${base}readyz`),
    await scrape(`${base}events`),
    await scrape(`${base}events`, { accept: 'text/event-stream' }),
    await scrape(`${base}nowhere`),
  ];
}

function expectNoSecret(texts: readonly string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(MARKER);
    expect(text).not.toContain(WRONG);
  }
}

describe('no password in anything Roster prints or serves', () => {
  it('roster node: stdout, debug logs, the status page, /status.json, /metrics, probes and /events (NDJSON and SSE)', async () => {
    const key = `sec${Math.random().toString(36).slice(2, 7)}`;
    const start = (id: string) =>
      startRoster('node', '--store', url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json', '--verbose', '--status-port', '0');
    const nodes = [start('a'), start('b')];
    await until(() => nodes.every((p) => p.members.length === 2 && p.leader !== undefined && p.leader !== null), WAIT, () => nodes.map((p) => p.describe()).join('\n'));
    const pages = await Promise.all(nodes.map((p) => statusUrl(p, WAIT)));
    const served = (await Promise.all(pages.map(scrapeAll))).flat();
    expect(served.some((text) => text.includes('"event":"members"'))).toBe(true); // the streams were read
    expect(served.some((text) => text.includes('127.0.0.1'))).toBe(true); // the store is shown, redacted
    for (const p of nodes) p.signal('SIGTERM');
    await Promise.all(nodes.map((p) => p.exited));
    expectNoSecret([...served, ...nodes.flatMap((p) => [p.lines.join('\n'), p.stderr])]);
  });

  it('roster node with a wrong password fails with one line that names the store, redacted', async () => {
    const { exit, stdout, stderr } = await runRoster(['node', '--store', wrongUrl, '--group', 'sec', '--env', 'test', '--connect-timeout', '1000', '--verbose', '--json'], WAIT);
    expect(exit.code).not.toBe(0);
    expect(stderr).toContain('127.0.0.1');
    expectNoSecret([stdout, stderr]);
  });

  it('roster node with a malformed store URL holding a password names neither', async () => {
    for (const bad of [`redis://u:${MARKER}@127.0.0.1:notaport`, `redis://u:${MARKER}/x@127.0.0.1:1`, `redis://u:${MARKER},x@127.0.0.1:1`, `u:${MARKER}@127.0.0.1:1`]) {
      const { exit, stdout, stderr } = await runRoster(['node', '--store', bad, '--group', 'sec', '--env', 'test', '--json'], WAIT);
      expect(exit.code).toBe(2);
      expectNoSecret([stdout, stderr]);
    }
  });

  it('roster primary run and get, with the right and a wrong password', async () => {
    const key = `secp${Math.random().toString(36).slice(2, 7)}`;
    const run = startRoster('primary', 'run', '--store', url, '--group', key, '--env', 'test', '--type', 'billing', '--interval', String(I), '--timeout', String(T), '--json', '--verbose');
    await until(() => run.lines.some((l) => l.includes('"primary"')), WAIT, () => run.describe());
    const get = await runRoster(['primary', 'get', '--store', url, '--group', key, '--env', 'test', '--type', 'billing', '--json']);
    const wrong = await runRoster(['primary', 'get', '--store', wrongUrl, '--group', key, '--env', 'test', '--type', 'billing', '--connect-timeout', '1000']);
    expect(wrong.exit.code).not.toBe(0);
    run.signal('SIGTERM');
    await run.exited;
    expectNoSecret([run.lines.join('\n'), run.stderr, get.stdout, get.stderr, wrong.stdout, wrong.stderr]);
  });

  it('cluster-test, with the right and a wrong password', async () => {
    const key = `secc${Math.random().toString(36).slice(2, 7)}`;
    const ok = startClusterTest('-k', key, '-i', 'n1', '-n', '2', '-r', url, '--interval', String(I), '--timeout', String(T));
    await ok.waitForLine('cluster-test: cluster joined; sleeping until terminated', WAIT);
    const wrong = startClusterTest('-k', key, '-i', 'n2', '-n', '1', '-r', wrongUrl, '--interval', String(I), '--timeout', String(T));
    await wrong.exited;
    ok.child.kill('SIGTERM');
    await ok.exited;
    expectNoSecret([ok.stdout, ok.stderr, wrong.stdout, wrong.stderr]);
  });

  it('roster node with the store only in the environment and --log-format json: JSON logs on stderr, events on stdout, no password', async () => {
    const key = `sece${Math.random().toString(36).slice(2, 7)}`;
    const env = { ROSTER_STORE_URL: bareUrl, ROSTER_STORE_PASSWORD: MARKER };
    const node = startRosterWithEnv(env, 'node', '--group', key, '--env', 'test', '--id', 'e1', '--interval', String(I), '--timeout', String(T), '--json', '--verbose', '--log-format', 'json', '--status-port', '0');
    await until(() => node.leader?.id === 'e1' && node.members.length === 1, WAIT, () => node.describe());
    const logs = () => node.stderr.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    await until(() => logs().some((l) => l.msg === 'status page'), WAIT, () => node.describe());
    const base = String(logs().find((l) => l.msg === 'status page')!.url);
    const served = await scrapeAll(base);
    expect(served[1]).toContain('"store": "redis://:***@127.0.0.1');
    node.signal('SIGTERM');
    expect((await node.exited).code).toBe(0);
    // stderr: only pino-shaped objects; stdout: only the event stream.
    for (const entry of logs()) {
      expect(entry).toMatchObject({ level: expect.any(Number), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), pid: expect.any(Number) });
      expect([20, 30, 40, 50]).toContain(entry.level);
    }
    expect(logs().find((l) => l.msg === 'node running')).toMatchObject({ id: 'e1', storeFrom: 'ROSTER_STORE_URL', store: `redis://:***@127.0.0.1:${redis.port}` });
    expect(node.lines.length).toBe(node.events.length);
    expect(node.events.every((e) => typeof e.event === 'string')).toBe(true);
    expectNoSecret([...served, node.lines.join('\n'), node.stderr]);
  });

  it('--store-file: the URL from a file; a wrong ROSTER_STORE_PASSWORD fails without showing it; text logs carry an ISO time with offset', async () => {
    const key = `secf${Math.random().toString(36).slice(2, 7)}`;
    const file = secretFile('store-url', `${url}\n`);
    const got = await runRoster(['primary', 'get', '--store-file', file, '--group', key, '--env', 'test', '--type', 'billing', '--json']);
    expect(got.exit.code).toBe(3); // reached the store: no primary
    const wrong = await runRoster(['node', '--store-file', secretFile('bare-url', bareUrl), '--group', key, '--env', 'test', '--connect-timeout', '1000', '--verbose'], WAIT, {
      ROSTER_STORE_PASSWORD: WRONG,
    });
    expect(wrong.exit.code).toBe(2);
    expect(wrong.stderr).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d (DEBUG|INFO |WARN |ERROR) /m);
    expect(wrong.stderr).toMatch(/roster node: the store refused access: redis:\/\/:\*\*\*@127\.0\.0\.1/);
    const ct = startClusterTest('-k', key, '-i', 'n1', '--store-file', file, '-v', '--interval', String(I), '--timeout', String(T));
    await ct.waitForLine('cluster-test: cluster joined; sleeping until terminated', WAIT);
    ct.child.kill('SIGTERM');
    await ct.exited;
    expectNoSecret([got.stdout, got.stderr, wrong.stdout, wrong.stderr, ct.stdout, ct.stderr]);
  });
});

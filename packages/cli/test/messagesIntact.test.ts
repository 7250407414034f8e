import { describe, expect, it } from 'vitest';
import { runClusterTest } from '../src/commands/clusterTest.js';
import { runCli } from '../src/index.js';
import { knownSecrets, SecretScrubber } from '../src/internal/scrubSecrets.js';
import { fakeIO } from './support/fakeIO.js';

const MARKER = 'Pw7xQ2Secret';
const NODE = ['--group', 'k', '--env', 'e'];

async function run(args: readonly string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = Object.assign(fakeIO(), { env });
  const code = await runCli(args, io);
  return { code, out: io.out, err: io.err };
}

describe("no message of the library reaches the user altered", () => {
  it('a PostgreSQL URL without a user: the library\'s message whole, brackets included', async () => {
    const { code, err } = await run(['node', '--store', 'postgres://db.internal/app', ...NODE]);
    expect(code).toBe(2);
    expect(err).toBe(
      'roster node: invalid store URL: Expected a user name in the PostgreSQL URL (`postgres://USER[:PASS]@HOST:PORT/DB`), got "postgres://db.internal/app" (from --store)\n',
    );
  });

  it('a URL from the environment is reported as from the environment, never as --store', async () => {
    const { err } = await run(['node', ...NODE], { ROSTER_STORE_URL: 'foo://x' });
    expect(err).toMatch(/^roster node: invalid store URL: Expected the scheme to be one of `redis:\/\/`, .*`postgresql:\/\/`, .*`mysql:\/\/`, .*found `foo:\/\/`, got "foo:\/\/x" \(from ROSTER_STORE_URL\)\n$/);
    expect(err).not.toContain('--store');
  });

  it('the safety net replaces known secrets and nothing else', () => {
    const text = 'Expected a user name in the PostgreSQL URL (`postgres://USER[:PASS]@HOST:PORT/DB`), got "postgres://db/app"';
    expect(new SecretScrubber(['s3cret!', 'pw']).scrub(text)).toBe(text);
    expect(new SecretScrubber(['s3cret/']).scrub('auth s3cret/ and s3cret%2F in "s3cret/"')).toBe('auth *** and *** in "***"');
    // A short secret only where it is a URL's password.
    expect(new SecretScrubber(['pw']).scrub('redis://u:pw@h:1 pwd pw')).toBe('redis://u:***@h:1 pwd pw');
    expect(knownSecrets(['--store', 'redis://u:a%2Fb@h:1', 'plain'], { ROSTER_STORE_URL: 'etcd://r:e1@h', ROSTER_STORE_PASSWORD: 'env' })).toEqual(['a%2Fb', 'a/b', 'e1', 'env']);
  });
});

describe('a password never appears in any output', () => {
  const malformed = [
    `redis://u:${MARKER}@127.0.0.1:notaport`,
    `redis://u:${MARKER}/x@127.0.0.1:1`,
    `redis://u:${MARKER},x@127.0.0.1:1`,
    `u:${MARKER}@127.0.0.1:1`,
    `postgres://u:${MARKER}@db/app?password=x`,
    `etcd://u:${MARKER}@[::1`,
    `redis+sentinel://:${MARKER}@s1:26379`,
  ];

  for (const url of malformed) {
    it(`roster node, roster primary get and cluster-test with ${url.replace(MARKER, 'PASSWORD')}`, async () => {
      const outputs: string[] = [];
      for (const args of [
        ['node', '--store', url, ...NODE],
        ['primary', 'get', '--store', url, ...NODE, '--type', 't'],
      ]) {
        const { code, out, err } = await run(args);
        expect(code).toBe(2);
        expect(err.trimEnd().split('\n')).toHaveLength(1);
        outputs.push(out, err);
      }
      const envs: Record<string, string>[] = [{ ROSTER_STORE_URL: url }, { ROSTER_STORE_URL: url.replace(`:${MARKER}`, ''), ROSTER_STORE_PASSWORD: MARKER }];
      for (const env of envs) {
        const { out, err } = await run(['node', ...NODE], env);
        outputs.push(out, err);
      }
      const io = fakeIO();
      expect(await runClusterTest(['-r', url], io)).toBe(2);
      outputs.push(io.out, io.err);
      for (const text of outputs) expect(text).not.toContain(MARKER);
    });
  }
});

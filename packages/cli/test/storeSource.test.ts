import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStoreUrl } from '@roster/kv-adapter/redis';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../src/CliError.js';
import { requireStoreUrl, resolveStoreUrl, urlPasswords, withPassword } from '../src/internal/storeSource.js';

const dir = mkdtempSync(join(tmpdir(), 'roster-store-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('where the store URL comes from', () => {
  const ENV = { kind: 'env', name: 'ROSTER_STORE_URL' } as const;

  it('the flag wins over the file, and the file over ROSTER_STORE_URL (which the flag table reads as the flag\'s variable)', () => {
    const path = file('store', 'redis://from-file:6379\n');
    const fromFlag = resolveStoreUrl('c', { url: 'redis://from-flag:6379', file: path }, {});
    expect(fromFlag).toEqual({ url: 'redis://from-flag:6379', display: 'redis://from-flag:6379', backend: 'redis', from: '--store', where: '--store', secrets: [] });
    expect(resolveStoreUrl('c', { url: 'redis://from-env:6379', source: ENV, file: path }, {})).toMatchObject({ url: 'redis://from-file:6379', from: '--store-file', where: `--store-file ${JSON.stringify(path)}` });
    expect(resolveStoreUrl('c', { url: 'redis://from-env:6379', source: ENV }, {})).toMatchObject({ url: 'redis://from-env:6379', from: 'ROSTER_STORE_URL', where: 'ROSTER_STORE_URL' });
    expect(resolveStoreUrl('c', {}, {})).toBeUndefined();
    expect(resolveStoreUrl('c', { url: '  ' }, {})).toBeUndefined();
  });

  it('the URL is checked, and redacted once into the form every text shows', () => {
    const found = resolveStoreUrl('c', { url: 'postgres://roster:Pw%2F1@db.internal/app' }, {});
    expect(found).toMatchObject({ display: 'postgres://roster:***@db.internal/app', backend: 'postgres', secrets: ['Pw%2F1', 'Pw/1'] });
  });

  it('an invalid URL is one line naming where it came from, with the library\'s message as it wrote it', () => {
    const fail = (input: Parameters<typeof resolveStoreUrl>[1]): string => {
      try {
        resolveStoreUrl('roster node', input, {});
      } catch (error) {
        expect(error).toBeInstanceOf(CliError);
        return (error as Error).message;
      }
      throw new Error('expected a CliError');
    };
    // The library's message keeps its brackets: nothing rewrites it after the fact.
    expect(fail({ url: 'postgres://db.internal/app' })).toBe(
      'roster node: invalid store URL: Expected a user name in the PostgreSQL URL (`postgres://USER[:PASS]@HOST:PORT/DB`), got "postgres://db.internal/app" (from --store)',
    );
    expect(fail({ url: 'foo://x', source: ENV })).toMatch(/^roster node: invalid store URL: Expected the scheme to be one of `redis:\/\/`, .*, found `foo:\/\/`, got "foo:\/\/x" \(from ROSTER_STORE_URL\)$/);
    expect(fail({ file: file('bad', 'redis://u:TopSecret9@h:notaport\n') })).toMatch(/^roster node: invalid store URL: .* \(from --store-file ".*bad"\)$/);
    expect(fail({ file: file('bad2', 'redis://u:TopSecret9@h:notaport\n') })).not.toContain('TopSecret9');
    expect(fail({ url: 'http://h', flag: '-r' })).toMatch(/^roster node: invalid store URL: .* \(from -r\)$/);
  });

  it('a file is read trimmed; a missing, empty or many-line file is one CliError that never shows the content', () => {
    expect(resolveStoreUrl('c', { file: file('spaced', '  \n redis://h:1 \r\n\n') }, {})?.url).toBe('redis://h:1');
    const fail = (path: string): string => {
      try {
        resolveStoreUrl('roster node', { file: path }, {});
      } catch (error) {
        expect(error).toBeInstanceOf(CliError);
        return (error as Error).message;
      }
      throw new Error('expected a CliError');
    };
    expect(fail(join(dir, 'nowhere'))).toMatch(/^roster node: cannot read --store-file ".*nowhere" \(ENOENT\)$/);
    expect(fail(file('empty', ' \n'))).toMatch(/^roster node: --store-file ".*empty" is empty/);
    const twoLines = fail(file('two', 'redis://:TopSecret1@h:1\nredis://:TopSecret2@h:2\n'));
    expect(twoLines).toMatch(/more than one line/);
    expect(twoLines).not.toContain('TopSecret');
  });

  it('a command that needs a store names the three ways to give it', () => {
    expect(() => requireStoreUrl('roster node', {}, {})).toThrow(
      'roster node: missing --store (or --store-file PATH, or ROSTER_STORE_URL in the environment; e.g. --store redis://127.0.0.1:6379)',
    );
    expect(() => requireStoreUrl('cluster-test', { flag: '-r' }, {})).toThrow(/^cluster-test: missing -r \(or --store-file PATH/);
  });
});

describe('ROSTER_STORE_PASSWORD', () => {
  it('is put, URL-encoded, into a URL that has no password, in every form parseStoreUrl takes', () => {
    const pw = 'p@ss:w/rd,x';
    expect(withPassword('redis://h:6379', pw)).toBe('redis://:p%40ss%3Aw%2Frd%2Cx@h:6379');
    expect(withPassword('rediss://app@h:6379/2', pw)).toBe('rediss://app:p%40ss%3Aw%2Frd%2Cx@h:6379/2');
    expect(withPassword('h:6379', pw)).toBe('redis://:p%40ss%3Aw%2Frd%2Cx@h:6379');
    expect(withPassword('a:7000,b:7001', pw)).toBe('redis://:p%40ss%3Aw%2Frd%2Cx@a:7000,b:7001');
    expect(withPassword('redis://a:7000,redis://b:7001', pw)).toBe('redis://:p%40ss%3Aw%2Frd%2Cx@a:7000,redis://b:7001');
    for (const url of ['redis://h:6379', 'rediss://app@h:6379/2', 'h:6379', 'a:7000,b:7001', 'redis://a:7000,redis://b:7001']) {
      expect(parseStoreUrl(withPassword(url, pw)).password).toBe(pw);
    }
  });

  it('goes into the user info of the first entry of any scheme: Sentinel, PostgreSQL, etcd', () => {
    expect(withPassword('redis+sentinel://s1:26379,s2:26379/mymaster', 'pw')).toBe('redis+sentinel://:pw@s1:26379,s2:26379/mymaster');
    expect(withPassword('postgres://roster@db.internal/app?sslmode=require', 'pw')).toBe('postgres://roster:pw@db.internal/app?sslmode=require');
    expect(withPassword('etcds://root@e1:2379,e2:2379', 'pw')).toBe('etcds://root:pw@e1:2379,e2:2379');
  });

  it('is a secret of the result, and leaves a URL that has its own password alone', () => {
    const env = { ROSTER_STORE_PASSWORD: 'EnvSecret' };
    const fromEnv = { url: 'redis://h:1', source: { kind: 'env', name: 'ROSTER_STORE_URL' } } as const;
    expect(resolveStoreUrl('c', fromEnv, env)).toMatchObject({ url: 'redis://:EnvSecret@h:1', display: 'redis://:***@h:1', from: 'ROSTER_STORE_URL', secrets: ['EnvSecret'] });
    expect(resolveStoreUrl('c', { url: 'redis://u:Own%21@h:1' }, env)).toMatchObject({ url: 'redis://u:Own%21@h:1', from: '--store', secrets: ['Own%21', 'Own!'] });
  });

  it('urlPasswords finds each entry\'s password, raw and decoded', () => {
    expect(urlPasswords('redis://u:a%2Fb@h:1')).toEqual(['a%2Fb', 'a/b']);
    expect(urlPasswords('redis://u:x@y@h:1,redis://:z@h:2')).toEqual(['x@y', 'z']);
    expect(urlPasswords('redis://u@h:1,h:2')).toEqual([]);
  });
});

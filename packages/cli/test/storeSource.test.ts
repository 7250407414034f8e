import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStoreUrl } from '@roster/kv-adapter';
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
  it('the flag wins over the file, and the file over ROSTER_STORE_URL', () => {
    const path = file('store', 'redis://from-file:6379\n');
    const env = { ROSTER_STORE_URL: 'redis://from-env:6379' };
    expect(resolveStoreUrl('c', { url: 'redis://from-flag:6379', file: path }, env)).toEqual({ url: 'redis://from-flag:6379', from: '--store', secrets: [] });
    expect(resolveStoreUrl('c', { file: path }, env)).toEqual({ url: 'redis://from-file:6379', from: '--store-file', secrets: [] });
    expect(resolveStoreUrl('c', {}, env)).toEqual({ url: 'redis://from-env:6379', from: 'ROSTER_STORE_URL', secrets: [] });
    expect(resolveStoreUrl('c', {}, {})).toBeUndefined();
    expect(resolveStoreUrl('c', {}, { ROSTER_STORE_URL: '  ' })).toBeUndefined();
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
    const env = { ROSTER_STORE_URL: 'redis://h:1', ROSTER_STORE_PASSWORD: 'EnvSecret' };
    expect(resolveStoreUrl('c', {}, env)).toEqual({ url: 'redis://:EnvSecret@h:1', from: 'ROSTER_STORE_URL', secrets: ['EnvSecret'] });
    expect(resolveStoreUrl('c', { url: 'redis://u:Own%21@h:1' }, env)).toEqual({ url: 'redis://u:Own%21@h:1', from: '--store', secrets: ['Own%21', 'Own!'] });
  });

  it('urlPasswords finds each entry\'s password, raw and decoded', () => {
    expect(urlPasswords('redis://u:a%2Fb@h:1')).toEqual(['a%2Fb', 'a/b']);
    expect(urlPasswords('redis://u:x@y@h:1,redis://:z@h:2')).toEqual(['x@y', 'z']);
    expect(urlPasswords('redis://u@h:1,h:2')).toEqual([]);
  });
});

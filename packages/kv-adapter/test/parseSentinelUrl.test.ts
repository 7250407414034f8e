import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, redactStoreUrl } from '../src/index.js';
import { parseStoreUrl } from '../src/redis.js';

describe('parseStoreUrl: redis+sentinel://', () => {
  it.each([
    [
      'redis+sentinel://10.0.0.1:26379,10.0.0.2:26380/mymaster',
      { mode: 'sentinel', sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: '10.0.0.2', port: 26380 }], name: 'mymaster', db: 0, tls: false },
    ],
    ['redis+sentinel://s1/m/3', { mode: 'sentinel', sentinels: [{ host: 's1', port: 26379 }], name: 'm', db: 3, tls: false }],
    [
      'rediss+sentinel://app:p%40ss@[::1]:5000/m',
      { mode: 'sentinel', sentinels: [{ host: '::1', port: 5000 }], name: 'm', db: 0, tls: true, username: 'app', password: 'p@ss' },
    ],
    ['REDIS+SENTINEL://:secret@h:1/m', { mode: 'sentinel', sentinels: [{ host: 'h', port: 1 }], name: 'm', db: 0, tls: false, password: 'secret' }],
    // A raw `@` or `/` in the password stays in it.
    ['redis+sentinel://u:a/b@c@h:1/m', { mode: 'sentinel', sentinels: [{ host: 'h', port: 1 }], name: 'm', db: 0, tls: false, username: 'u', password: 'a/b@c' }],
    // The sentinels' own credentials in the query, URL-encoded (a `+` is a plus).
    [
      'rediss+sentinel://app:pw@h:1,h:2/m/2?sentinelUsername=watch&sentinelPassword=s%26c%40t+1',
      { mode: 'sentinel', sentinels: [{ host: 'h', port: 1 }, { host: 'h', port: 2 }], name: 'm', db: 2, tls: true, username: 'app', password: 'pw', sentinelUsername: 'watch', sentinelPassword: 's&c@t+1' },
    ],
    ['redis+sentinel://h:1/m?sentinelPassword=only', { mode: 'sentinel', sentinels: [{ host: 'h', port: 1 }], name: 'm', db: 0, tls: false, sentinelPassword: 'only' }],
  ])('%s', (url, expected) => {
    expect(parseStoreUrl(url)).toEqual(expected);
  });

  it.each([
    ['redis+sentinel://h:1', /master name is missing/],
    ['redis+sentinel://h:1/', /master name is missing/],
    ['redis+sentinel://h:1/m/x', /database number/],
    ['redis+sentinel://h:1/m/0/extra', /too many parts/],
    ['redis+sentinel://h:1,,h:2/m', /empty entry/],
    ['redis+sentinel://h:99999/m', /port|sentinel/],
    ['redis+sentinel://h:1/m?x=1', /only the parameters `sentinelUsername`, `sentinelPassword`/],
    ['redis+sentinel://h:1/m?sentinelPassword=a&sentinelPassword=b', /once/],
    ['redis+sentinel://h:1/m?sentinelPassword=a#f', /fragment/],
  ])('refuses %s', (url, message) => {
    const error = (() => {
      try {
        parseStoreUrl(url);
      } catch (e) {
        return e;
      }
    })();
    expect(ConfigError.is(error)).toBe(true);
    expect(error).toMatchObject({ field: 'store' });
    expect((error as Error).message).toMatch(message);
  });

  it('never shows the password, in the redacted URL or in errors', () => {
    expect(redactStoreUrl('redis+sentinel://app:hunter2@h:1,h:2/m')).toBe('redis+sentinel://app:***@h:1,h:2/m');
    expect(() => parseStoreUrl('redis+sentinel://app:hunter2@h:1/m/x')).toThrow(/^(?!.*hunter2)/s);
    expect(redactStoreUrl('rediss+sentinel://app:hunter2@h:1/m?sentinelUsername=w&sentinelPassword=hunter3')).toBe('rediss+sentinel://app:***@h:1/m?sentinelUsername=w&sentinelPassword=***');
    expect(() => parseStoreUrl('redis+sentinel://h:1/m?sentinelPassword=hunter3&x=1')).toThrow(/^(?!.*hunter3)/s);
  });
});

describe('parseStoreUrl: any text after redis+sentinel://', () => {
  it('returns well-formed sentinels and a master name, or throws ConfigError(store) without the password', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab:1@/,[]%?#.9-'.split('')), maxLength: 30 }), (tail) => {
        const url = `redis+sentinel://u:pw${tail}`;
        let parsed;
        try {
          parsed = parseStoreUrl(url);
        } catch (error) {
          expect(ConfigError.is(error), String(error)).toBe(true);
          return;
        }
        expect(parsed.mode).toBe('sentinel');
        if (parsed.mode !== 'sentinel') return;
        expect(parsed.name.length).toBeGreaterThan(0);
        expect(parsed.sentinels.length).toBeGreaterThan(0);
        for (const s of parsed.sentinels) {
          expect(s.host.length).toBeGreaterThan(0);
          expect(Number.isInteger(s.port) && s.port >= 1 && s.port <= 65535).toBe(true);
        }
      }),
      { seed: 24, numRuns: 2000 },
    );
  });
});

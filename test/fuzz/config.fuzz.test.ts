/**
 * The parsers of what an operator types, fed arbitrary text: the store URL, the group and
 * environment names, and the whole `roster` command line. Each refuses with its typed error
 * (ConfigError naming the field, or one CliError line and exit code 2), never leaks a password,
 * and what it accepts round-trips.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, Namespace, redactStoreUrl, type ParsedStoreUrl } from '@roster/kv-adapter';
import { parseStoreUrl } from '@roster/kv-adapter/redis';
import { runCli, type CliIO } from '@roster/cli';
import { anyText, fuzzParams, mutated, textOver } from '../support/fuzz.js';

const URL_ALPHABET = ['redis://', 'rediss://', 'http://', 'h', '127.0.0.1', '[::1]', ':', '@', '/', ',', '0', '6379', '65536', '%', '%zz', '?', '#', ' ', 'u', 'p'];

/** Calls `parse`; a thrown error must be a ConfigError of `field`, anything else fails the property. */
function configOrThrow<T>(field: string, parse: () => T): T | ConfigError {
  try {
    return parse();
  } catch (error) {
    if (!ConfigError.is(error)) throw new Error(`threw ${String(error)} instead of a ConfigError`);
    expect(error.field).toBe(field);
    return error;
  }
}

/** Formats a parsed single-server URL back, credentials URL-encoded. */
function formatSingle(p: { host: string; port: number; db: number; tls: boolean; username?: string; password?: string }): string {
  const auth = p.username === undefined && p.password === undefined ? '' : `${encodeURIComponent(p.username ?? '')}${p.password === undefined ? '' : `:${encodeURIComponent(p.password)}`}@`;
  const host = p.host.includes(':') ? `[${p.host}]` : p.host;
  return `${p.tls ? 'rediss' : 'redis'}://${auth}${host}:${p.port}/${p.db}`;
}

const hostname = fc.oneof(fc.domain(), fc.ipV4(), fc.constant('::1'));
const secret = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => s.isWellFormed());
const single = fc.record(
  {
    host: hostname,
    port: fc.integer({ min: 1, max: 65535 }),
    db: fc.integer({ min: 0, max: 15 }),
    tls: fc.boolean(),
    username: fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/),
    password: secret,
  },
  { requiredKeys: ['host', 'port', 'db', 'tls'] },
);

describe('the store URL', () => {
  it('parseStoreUrl returns a well-formed store or throws ConfigError(store), for any text', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(URL_ALPHABET), mutated(single.map(formatSingle))), (text) => {
        const result = configOrThrow('store', () => parseStoreUrl(text));
        if (result instanceof ConfigError) return;
        const addresses = result.mode === 'single' ? [result] : result.mode === 'sentinel' ? result.sentinels : result.nodes;
        expect(addresses.length).toBeGreaterThan(0);
        for (const a of addresses) {
          expect(a.host.length).toBeGreaterThan(0);
          expect(Number.isInteger(a.port) && a.port >= 1 && a.port <= 65535).toBe(true);
        }
        if (result.mode === 'single') expect(Number.isInteger(result.db) && result.db >= 0).toBe(true);
      }),
      fuzzParams,
    );
  });

  it('round-trips: a formatted URL parses to the same server, credentials and database', () => {
    fc.assert(
      fc.property(single, (s) => {
        const parsed = parseStoreUrl(formatSingle(s));
        const expected: ParsedStoreUrl = { mode: 'single', ...s, ...(s.host === '::1' && { host: '::1' }) };
        expect({ ...parsed, host: parsed.mode === 'single' ? parsed.host.toLowerCase() : '' }).toEqual({ ...expected, host: s.host.toLowerCase() });
      }),
      fuzzParams,
    );
  });

  it('never shows a password: not in the redacted URL, not in any error, whatever characters it holds and however it is written', () => {
    const raw = fc.tuple(fc.constantFrom('redis://', 'rediss://', ''), fc.stringMatching(/^[a-z]{0,6}$/), secret, fc.constantFrom('h:1', '127.0.0.1', 'h:1/0', 'h:1,h:2', 'h:x'), fc.boolean());
    fc.assert(
      fc.property(raw, ([scheme, user, password, rest, encode]) => {
        const marker = `Zq${password}`; // at least two characters nothing else in the URL contains
        const written = encode ? encodeURIComponent(marker) : marker;
        const url = `${scheme}${user}:${written}@${rest}`;
        const shown = [redactStoreUrl(url)];
        const result = configOrThrow('store', () => parseStoreUrl(url));
        if (result instanceof ConfigError) shown.push(result.message, String(result.value), String(result.cause ?? ''), JSON.stringify(result));
        for (const text of shown) {
          expect(text).not.toContain(written);
          expect(text).not.toContain(marker);
        }
      }),
      fuzzParams,
    );
  });
});

describe('group and environment names', () => {
  const NAME_ALPHABET = ['a', 'Z', '0', '.', '_', '-', ':', '@', '/', ' ', '*', '?', '[', ']', '{', '}', '..', '\u0000', '\n', '\t', 'é', '\u200b'];
  const valid = fc.stringMatching(/^[A-Za-z0-9_\-:@]([A-Za-z0-9._\-:@]{0,20}[A-Za-z0-9_\-:@])?$/).filter((s) => !s.includes('..'));

  it('Namespace accepts only 1 to 128 of letters, digits and . _ - : @ (no `.` alone, no `..`); anything else is ConfigError naming the field', () => {
    fc.assert(
      fc.property(fc.oneof(anyText(NAME_ALPHABET), mutated(valid), fc.constantFrom('', '.', '..', 'a..b', 'x'.repeat(129), 'a/b', 'a b', 'a*', 'a?', 'a[b]', '{tag}')), (name) => {
        const group = configOrThrow('group', () => new Namespace(name, 'dev'));
        const env = configOrThrow('env', () => new Namespace('app', name));
        const ok = name.length >= 1 && name.length <= 128 && /^[A-Za-z0-9._\-:@]+$/.test(name) && name !== '.' && !name.includes('..');
        expect(group instanceof ConfigError).toBe(!ok);
        expect(env instanceof ConfigError).toBe(!ok);
        if (!ok) return;
        expect((group as Namespace).prefix).toBe(`roster/${name}/dev/`);
        expect((env as Namespace).prefix).toBe(`roster/app/${name}/`);
      }),
      fuzzParams,
    );
  });

  it('two different (group, env) pairs never share a key: neither prefix starts with the other', () => {
    fc.assert(
      fc.property(valid, valid, valid, valid, (g1, e1, g2, e2) => {
        fc.pre(g1 !== g2 || e1 !== e2);
        const a = new Namespace(g1, e1).prefix;
        const b = new Namespace(g2, e2).prefix;
        expect(a.startsWith(b) || b.startsWith(a)).toBe(false);
      }),
      fuzzParams,
    );
  });
});

describe('the roster command line', () => {
  /** An IO that records the output and asks any command that starts to stop at once. */
  function fakeIO(): CliIO & { out: string; err: string } {
    const io = {
      out: '',
      err: '',
      stdout: { write: (text: string) => void (io.out += text) },
      stderr: { write: (text: string) => void (io.err += text) },
      env: {},
      onSignal(handler: (signal: 'SIGINT' | 'SIGTERM') => void) {
        const timer = setTimeout(() => handler('SIGTERM'), 0);
        return () => clearTimeout(timer);
      },
    };
    return io;
  }

  const FLAGS = ['node', 'primary', 'help', '--help', '-h', '--store', '--group', '--env', '--id', '--interval', '--timeout', '--status-port', '--connect-timeout', '--json', '--verbose', '--type', '--json=1', '--interval=-1', '-x', '--', '=', '0', '1', '99999999999999999999', '-1', 'redis://u:Zqpw@h:x', ' '];
  const args = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...FLAGS) }, { weight: 1, arbitrary: anyText(['-', '=', 'a'], { huge: false }) }), { maxLength: 8 });

  it('runCli answers any arguments that name no usable store with exit 0 or one line and exit 2, never an unexpected error', async () => {
    await fc.assert(
      fc.asyncProperty(args, async (argv) => {
        const io = fakeIO();
        const code = await runCli(argv, io);
        expect(io.err).not.toContain('unexpected error');
        // A password given as the store is never echoed (a stray argument is quoted as typed).
        const stray = argv.some((a, i) => a.includes('Zqpw') && argv[i - 1] !== '--store');
        if (!stray) expect(io.err + io.out).not.toContain('Zqpw');
        expect([0, 2]).toContain(code);
        if (code === 2) expect(io.err.trimEnd().split('\n').length === 1 || argv.length === 0).toBe(true);
      }),
      fuzzParams,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { formatTextLogLine, isoLocalTime, requestedLogFormat } from '../src/internal/logFormat.js';
import { StderrLogger, type StderrLoggerOptions } from '../src/internal/StderrLogger.js';
import { fakeIO } from './support/fakeIO.js';

const AT = new Date('2026-11-26T12:10:39.235Z');
const BASE = { pid: 4242, hostname: 'box' };

function sink(): { text: string; write(t: string): void } {
  const s = { text: '', write: (t: string) => void (s.text += t) };
  return s;
}

/** A logger at debug into a buffer, at the fixed time and base. */
function logger(options: StderrLoggerOptions = {}): { log: StderrLogger; out: ReturnType<typeof sink> } {
  const out = sink();
  return { log: new StderrLogger(out, { level: 'debug', base: BASE, now: () => AT, ...options }), out };
}

/** The JSON lines written, parsed. */
function entries(text: string): Record<string, unknown>[] {
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('--log-format text', () => {
  it('starts each line with the ISO local time and its offset', () => {
    expect(isoLocalTime(AT)).toMatch(/^2026-11-2\dT\d{2}:\d{2}:39\.235[+-]\d{2}:\d{2}$/);
    // The same instant, whatever the zone.
    expect(new Date(isoLocalTime(AT)).getTime()).toBe(AT.getTime());
    const { log, out } = logger();
    log.warn({ err: new Error('kv: store unavailable'), n: 3, s: 'a b', big: 2n ** 64n }, 'publish failed');
    expect(out.text).toBe(`${isoLocalTime(AT)} WARN  publish failed err="kv: store unavailable" n=3 s="a b" big=18446744073709551616\n`);
  });

  it('formats one of pino\'s lines: level name, message, then the fields in order', () => {
    expect(formatTextLogLine({ level: 60, time: AT.toISOString(), pid: 1, hostname: 'h', exitCode: 2, msg: 'roster node: bad' })).toBe(
      `${isoLocalTime(AT)} FATAL roster node: bad exitCode=2`,
    );
    expect(formatTextLogLine({ level: 20, time: AT.toISOString(), o: { a: [1] } })).toBe(`${isoLocalTime(AT)} DEBUG o={"a":[1]}`);
  });
});

describe('--log-format json: pino\'s own lines', () => {
  it('one object: level number, isoTime, pid, hostname, the fields, msg last', () => {
    const { log, out } = logger({ format: 'json' });
    log.info({ id: 'web-1', intervalMs: 1000, big: 2n ** 64n }, 'node running');
    expect(out.text).toBe('{"level":30,"time":"2026-11-26T12:10:39.235Z","pid":4242,"hostname":"box","id":"web-1","intervalMs":1000,"big":"18446744073709551616","msg":"node running"}\n');
    expect(Object.keys(entries(out.text)[0]!)).toEqual(['level', 'time', 'pid', 'hostname', 'id', 'intervalMs', 'big', 'msg']);
  });

  it('pino\'s level numbers, fatal included; a field named like a reserved key is dropped; no msg without a message', () => {
    const { log, out } = logger({ format: 'json' });
    log.debug({});
    log.info({});
    log.warn({});
    log.error({});
    log.fatal({});
    expect(entries(out.text).map((e) => e.level)).toEqual([20, 30, 40, 50, 60]);
    const reserved = logger({ format: 'json' });
    reserved.log.info({ level: 'x', time: 1, pid: 2, hostname: 'y', msg: 'z', kept: true });
    expect(entries(reserved.out.text)).toEqual([{ level: 30, time: AT.toISOString(), pid: 4242, hostname: 'box', kept: true }]);
  });

  it('serializes err as pino\'s errWithCause does: type, message, stack, code, and cause the same way', () => {
    const cause = new TypeError('socket closed');
    const err = Object.assign(new RangeError('store unavailable', { cause }), { code: 'KV_STORE_UNAVAILABLE' });
    const { log, out } = logger({ format: 'json' });
    log.error({ err }, 'publish failed');
    log.warn({ failure: err, list: [new Error('x')], cause: new Error('why', { cause: 'a string' }) });
    const [first, second] = entries(out.text);
    const serialized = { type: 'RangeError', message: 'store unavailable', stack: err.stack, code: 'KV_STORE_UNAVAILABLE', cause: { type: 'TypeError', message: 'socket closed', stack: cause.stack } };
    expect(first!.err).toEqual(serialized);
    // An error in any other field, at any depth, is serialized the same way.
    expect(second!.failure).toEqual(serialized);
    expect(second!.list).toEqual([{ type: 'Error', message: 'x', stack: expect.any(String) }]);
    expect(second!.cause).toMatchObject({ type: 'Error', message: 'why', cause: 'a string' });
  });

  it('logs a shared, non-cyclic object as itself wherever it appears, in both formats', () => {
    const shared = { host: 'h', port: 6379 };
    const fields = { a: shared, b: shared, list: [shared, shared], nested: { again: shared } };
    const json = logger({ format: 'json' });
    json.log.info(fields, 'shared');
    expect(json.out.text).not.toContain('Circular');
    expect(entries(json.out.text)[0]).toMatchObject({ a: shared, b: shared, list: [shared, shared], nested: { again: shared }, msg: 'shared' });
    const text = logger({ format: 'text' });
    text.log.info(fields, 'shared');
    expect(text.out.text).toBe(`${isoLocalTime(AT)} INFO  shared a={"host":"h","port":6379} b={"host":"h","port":6379} list=[{"host":"h","port":6379},{"host":"h","port":6379}] nested={"again":{"host":"h","port":6379}}\n`);
  });

  it('survives a real cycle: only the object inside itself is "[Circular]"', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const withBigint: Record<string, unknown> = { n: 1n };
    withBigint.self = withBigint;
    const { log, out } = logger({ format: 'json' });
    log.info({ a, withBigint }, 'm');
    expect(entries(out.text)[0]).toMatchObject({ a: { name: 'a', self: '[Circular]' }, withBigint: { n: '1', self: '[Circular]' }, msg: 'm' });
  });

  it('a message is taken as it is, % included', () => {
    const { log, out } = logger({ format: 'json' });
    log.info({}, '100%s done %d %%');
    expect(entries(out.text)[0]!.msg).toBe('100%s done %d %%');
  });

});

describe('StderrLogger', () => {
  it('writes JSON lines in json format, text lines to the tap, and drops entries below its level', () => {
    const tapped: string[] = [];
    const { log, out } = logger({ format: 'json', level: 'info', tap: (l) => tapped.push(l) });
    log.debug({}, 'hidden');
    log.info({ id: 'a' }, 'shown');
    log.atLeast('warn').info({}, 'hidden too');
    log.atLeast('warn').warn({}, 'warned');
    expect(log.atLeast('debug')).toBe(log); // never lowers the level
    expect(out.text).toBe(
      '{"level":30,"time":"2026-11-26T12:10:39.235Z","pid":4242,"hostname":"box","id":"a","msg":"shown"}\n' +
        '{"level":40,"time":"2026-11-26T12:10:39.235Z","pid":4242,"hostname":"box","msg":"warned"}\n',
    );
    expect(tapped).toEqual([`${isoLocalTime(AT)} INFO  shown id=a`, `${isoLocalTime(AT)} WARN  warned`]);
  });

  it('redact paths: a password field is ***, a URL field keeps its URL without the password, whatever the secrets listed', () => {
    const { log, out } = logger({ format: 'json' });
    log.info({ password: 'pw', options: { password: 'p1', db: 0 }, store: 'redis://app:Url@Secret@h:1,h:2', url: 'etcd://u:x@h:2379', target: 'rediss://:a@h' });
    expect(entries(out.text)[0]).toMatchObject({
      password: '***',
      options: { password: '***', db: 0 },
      store: 'redis://app:***@h:1,h:2',
      url: 'etcd://u:***@h:2379',
      target: 'rediss://:***@h',
    });
  });

  it('never prints a password: a URL field\'s through the redact paths, a known secret anywhere in the line, in both formats', () => {
    for (const format of ['text', 'json'] as const) {
      const tapped: string[] = [];
      // `Url@Secret` is no listed secret: only the redact path of `store` hides it.
      const { log, out } = logger({ format, secrets: ['Known"Secret', 'Other/pw'], tap: (l) => tapped.push(l) });
      log.warn({ store: 'redis://app:Url@Secret@h:1', err: new Error('auth failed for Known"Secret'), id: 'n@1' }, 'to rediss://:Other%2Fpw@h:2 done');
      const all = out.text + tapped.join('\n');
      for (const secret of ['Url@Secret', 'Secret@h', 'Other%2Fpw', 'Other/pw', 'Known"Secret', 'Known\\"Secret']) expect(all).not.toContain(secret);
      expect(all).toContain('redis://app:***@h:1');
      expect(all).toContain('rediss://:***@h:2');
      expect(all).toContain('n@1'); // an `@` elsewhere is left alone
      if (format === 'json') expect(() => entries(out.text)).not.toThrow();
    }
  });
});

describe('the fatal line', () => {
  it('requestedLogFormat reads --log-format json or --log-format=json, the last one, none after --', () => {
    expect(requestedLogFormat([])).toBe('text');
    expect(requestedLogFormat(['--log-format', 'json'])).toBe('json');
    expect(requestedLogFormat(['--log-format=json'])).toBe('json');
    expect(requestedLogFormat(['--log-format', 'json', '--log-format', 'text'])).toBe('text');
    expect(requestedLogFormat(['--log-format', 'yaml'])).toBe('text');
    expect(requestedLogFormat(['--', '--log-format', 'json'])).toBe('text');
  });

  it('with --log-format json, a bad --store exits 2 with one JSON line at level fatal', async () => {
    const io = fakeIO();
    const code = await runCli(['node', '--log-format', 'json', '--store', 'http://app:Hidden1@localhost:6379', '--group', 'k', '--env', 'e'], io);
    expect(code).toBe(2);
    expect(io.out).toBe('');
    expect(io.err.endsWith('\n')).toBe(true);
    const lines = io.err.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 60, time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), pid: process.pid, exitCode: 2 });
    expect(entry.msg).toMatch(/^roster node: .*(--store|store URL)/);
    expect(io.err).not.toContain('Hidden1');
  });

  it('with --log-format=json, an argument problem found before the command runs is JSON too, without ROSTER_STORE_PASSWORD', async () => {
    const io = Object.assign(fakeIO(), { env: { ROSTER_STORE_PASSWORD: 'EnvSecret9' } });
    const code = await runCli(['node', '--log-format=json', '--group', 'EnvSecret9', '--env', 'e'], io);
    expect(code).toBe(2);
    const entry = JSON.parse(io.err) as Record<string, unknown>;
    expect(entry).toMatchObject({ level: 60, exitCode: 2, msg: expect.stringMatching(/^roster node: missing --store/) });
    expect(io.err).not.toContain('EnvSecret9');
  });

  it('an unexpected error under --log-format json: exit 1, fatal, with err and its stack', async () => {
    const io = fakeIO();
    const boom = { name: 'boom', summary: '', help: '', run: () => Promise.reject(new Error('kaput')) };
    expect(await runCli(['boom', '--log-format', 'json'], io, { commands: [boom] })).toBe(1);
    const entry = JSON.parse(io.err) as { level: number; exitCode: number; msg: string; err: Record<string, unknown> };
    expect(entry).toMatchObject({ level: 60, exitCode: 1, msg: 'roster: unexpected error: kaput', err: { type: 'Error', message: 'kaput', stack: expect.stringMatching(/^Error: kaput\n/) } });
  });

  it('without --log-format json, the one plain line as before', async () => {
    const io = fakeIO();
    expect(await runCli(['node', '--store', 'http://app:Hidden1@localhost:6379', '--group', 'k', '--env', 'e'], io)).toBe(2);
    expect(io.err).toMatch(/^roster node: .*(--store|store URL).*\n$/);
    expect(io.err.split('\n')).toHaveLength(2);
    expect(io.err).not.toContain('Hidden1');
  });
});

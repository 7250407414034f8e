import { describe, expect, it } from 'vitest';
import { CliError } from '../src/CliError.js';
import { formatJsonLogLine, formatTextLogLine, isoLocalTime, logFormatOption } from '../src/internal/logFormat.js';
import { SecretScrubber } from '../src/internal/scrubSecrets.js';
import { StderrLogger } from '../src/internal/StderrLogger.js';

const AT = new Date('2026-11-26T12:10:39.235Z');
const BASE = { pid: 4242, hostname: 'box' };

function sink(): { text: string; write(t: string): void } {
  const s = { text: '', write: (t: string) => void (s.text += t) };
  return s;
}

describe('--log-format text', () => {
  it('starts each line with the ISO local time and its offset', () => {
    expect(isoLocalTime(AT)).toMatch(/^2026-11-2\dT\d{2}:\d{2}:39\.235[+-]\d{2}:\d{2}$/);
    // The same instant, whatever the zone.
    expect(new Date(isoLocalTime(AT)).getTime()).toBe(AT.getTime());
    const line = formatTextLogLine(AT, 'warn', { err: new Error('kv: store unavailable'), n: 3, s: 'a b' }, 'publish failed');
    expect(line).toBe(`${isoLocalTime(AT)} WARN  publish failed err="kv: store unavailable" n=3 s="a b"`);
  });
});

describe('--log-format json: pino\'s shape', () => {
  it('one object: level number, isoTime, pid, hostname, the fields, msg last', () => {
    const line = formatJsonLogLine(AT, 'info', { id: 'web-1', intervalMs: 1000, big: 2n ** 64n }, 'node running', BASE);
    expect(line).toBe('{"level":30,"time":"2026-11-26T12:10:39.235Z","pid":4242,"hostname":"box","id":"web-1","intervalMs":1000,"big":"18446744073709551616","msg":"node running"}');
    expect(Object.keys(JSON.parse(line) as object)).toEqual(['level', 'time', 'pid', 'hostname', 'id', 'intervalMs', 'big', 'msg']);
    const levels = (['debug', 'info', 'warn', 'error'] as const).map((l) => (JSON.parse(formatJsonLogLine(AT, l, {}, undefined, BASE)) as { level: number }).level);
    expect(levels).toEqual([20, 30, 40, 50]);
    expect(JSON.parse(formatJsonLogLine(AT, 'info', { level: 'x', msg: 'y' }, undefined, BASE))).toEqual({ level: 30, time: AT.toISOString(), pid: 4242, hostname: 'box' });
  });

  it('serializes err as pino does: type, message, stack, and code and cause when present', () => {
    const cause = new TypeError('socket closed');
    const err = Object.assign(new RangeError('store unavailable', { cause }), { code: 'KV_STORE_UNAVAILABLE' });
    const entry = JSON.parse(formatJsonLogLine(AT, 'error', { err }, 'publish failed', BASE)) as { err: Record<string, unknown> };
    expect(entry.err).toEqual({ type: 'RangeError', message: 'store unavailable', stack: err.stack, code: 'KV_STORE_UNAVAILABLE', cause: { type: 'TypeError', message: 'socket closed', stack: cause.stack } });
  });

  it('survives a cycle in a field', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    expect(JSON.parse(formatJsonLogLine(AT, 'info', { a }, 'm', BASE))).toMatchObject({ a: { name: 'a', self: '[Circular]' }, msg: 'm' });
  });

  it('--log-format takes text or json', () => {
    expect(logFormatOption('c', undefined)).toBe('text');
    expect(logFormatOption('c', 'json')).toBe('json');
    expect(() => logFormatOption('roster node', 'yaml')).toThrow(new CliError('roster node: --log-format must be text or json, got "yaml"'));
  });
});

describe('StderrLogger', () => {
  it('writes JSON lines in json format, text lines to the tap, and drops entries below its level', () => {
    const out = sink();
    const tapped: string[] = [];
    const log = new StderrLogger(out, { format: 'json', base: BASE, now: () => AT, tap: (l) => tapped.push(l) });
    log.debug({}, 'hidden');
    log.info({ id: 'a' }, 'shown');
    log.atLeast('warn').info({}, 'hidden too');
    expect(out.text).toBe('{"level":30,"time":"2026-11-26T12:10:39.235Z","pid":4242,"hostname":"box","id":"a","msg":"shown"}\n');
    expect(tapped).toEqual([`${isoLocalTime(AT)} INFO  shown id=a`]);
  });

  it('never prints a password: in a URL, or a known secret anywhere, in both formats', () => {
    for (const format of ['text', 'json'] as const) {
      const out = sink();
      const tapped: string[] = [];
      const log = new StderrLogger(out, { format, base: BASE, now: () => AT, scrubber: new SecretScrubber(['Known"Secret']), tap: (l) => tapped.push(l) });
      log.warn({ store: 'redis://app:Url@Secret@h:1', err: new Error('auth failed for Known"Secret'), id: 'n@1' }, 'to rediss://:Other%2Fpw@h:2 done');
      const all = out.text + tapped.join('\n');
      for (const secret of ['Url@Secret', 'Secret@h', 'Other%2Fpw', 'Known"Secret', 'Known\\"Secret']) expect(all).not.toContain(secret);
      expect(all).toContain('redis://app:***@h:1');
      expect(all).toContain('rediss://:***@h:2');
      expect(all).toContain('n@1'); // an `@` elsewhere is left alone
      if (format === 'json') expect(() => JSON.parse(out.text) as unknown).not.toThrow();
    }
  });
});

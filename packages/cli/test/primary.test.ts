import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { fakeIO } from './support/fakeIO.js';
import { describeResult, toResult } from '../src/primary/getPrimary.js';
import { idGenerator } from '../src/primary/primaryConfig.js';
import { describePrimaryEvent, formatJsonPrimaryEvent } from '../src/primary/primaryEvents.js';


const STORE = ['--store', 'redis://127.0.0.1:1', '--group', 'shop', '--env', 'dev'];

describe('roster primary: arguments', () => {
  it('`roster --help` lists it; `roster primary --help` and `roster primary run --help` print its usage', async () => {
    const io = fakeIO();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/\n {2}primary +one primary per role type/);
    const top = fakeIO();
    expect(await runCli(['primary', '--help'], top)).toBe(0);
    expect(top.out).toMatch(/^Usage: roster primary run \[--store URL \| --store-file PATH\] --group GROUP --env ENV --type TYPE/);
    expect(top.out).toMatch(/--exit-on-loss +exit with code 4/);
    const sub = fakeIO();
    expect(await runCli(['primary', 'run', '--help'], sub)).toBe(0);
    expect(sub.out).toBe(top.out);
  });

  it.each([
    [['primary'], 'roster primary: expected run or get (see `roster primary --help`)'],
    [['primary', 'elect'], 'roster primary: unknown subcommand "elect", expected run or get (see `roster primary --help`)'],
    [['primary', 'run', ...STORE], 'roster primary run: missing --type (e.g. --type billing)'],
    [['primary', 'get', '--store', 'redis://h', '--env', 'e', '--type', 't'], 'roster primary get: missing --group (e.g. --group shop)'],
    [['primary', 'get', ...STORE, '--type', 't', '--interval', '100'], 'roster primary get: unknown option --interval (see `roster primary get --help`)'],
    [['primary', 'run', ...STORE, '--type', 't', '--interval', 'soon'], 'roster primary run: --interval must be an integer ≥ 1 (milliseconds), got "soon"'],
    [
      ['primary', 'run', ...STORE, '--type', 't', '--interval', '100', '--timeout', '200'],
      'roster primary run: --timeout 200 is not more than twice --interval 100 (2 × 100 = 200): set --timeout to at least 201 or --interval to at most 99',
    ],
    [
      ['primary', 'run', ...STORE, '--type', 't', '--interval', '3000'],
      'roster primary run: the default --timeout 5000 is not more than twice --interval 3000 (2 × 3000 = 6000): set --timeout to at least 6001 or --interval to at most 2499',
    ],
    [['primary', 'run', ...STORE, '--type', 'two words'], 'roster primary run: invalid --type: Expected `utype` to be 1 to 128 characters without whitespace, got "two words"'],
    [['primary', 'get', ...STORE, '--type', 't\u00a0u'], 'roster primary get: invalid --type: Expected `utype` to be 1 to 128 characters without whitespace, got "t\u00a0u"'],
    [['primary', 'run', ...STORE, '--type', 't', '--endpoint', 'x'.repeat(1025)], /^roster primary run: invalid --endpoint: Expected `endpoint` to be 1 to 1024 characters/],
    [['primary', 'run', '--store', 'redis://h', '--group', 'a/b', '--env', 'e', '--type', 't'], /^roster primary run: invalid --group: Expected `group` to be/],
    [['primary', 'run', '--store', 'ftp://h', '--group', 'k', '--env', 'e', '--type', 't'], /^roster primary run: invalid store URL: Expected the scheme to be one of `redis:\/\/`, `rediss:\/\/`.*, got "ftp:\/\/h" \(from --store\)\n$/],
    [['primary', 'get', '--store', 'etcd://h:2379', '--group', 'k', '--env', 'e', '--type', 't', '--timeout', '0'], 'roster primary get: --timeout must be an integer ≥ 1 (milliseconds), got "0"'],
  ])('%j exits 2 with one line, before contacting the store', async (args, line) => {
    const io = fakeIO();
    expect(await runCli(args, io)).toBe(2);
    if (typeof line === 'string') expect(io.err).toBe(`${line}\n`);
    else expect(io.err).toMatch(line);
    expect(io.err.trimEnd().split('\n')).toHaveLength(1);
    expect(io.out).toBe('');
  });
});

describe('roster primary run --json lines', () => {
  it('each event is one JSON object with ts, id, utype and event first', () => {
    const line = formatJsonPrimaryEvent({ ts: 5, id: 'a', utype: 'billing', event: 'acting', endpoint: null, claimedAt: 1767225600123 });
    expect(line).toBe('{"ts":5,"id":"a","utype":"billing","event":"acting","endpoint":null,"claimedAt":1767225600123}');
  });

  it('human lines say who is primary, and mark this instance', () => {
    const base = { ts: 0, id: 'a', utype: 'billing' } as const;
    expect(describePrimaryEvent({ ...base, event: 'primary', primary: 'a', endpoint: '10.0.0.7:8080' })).toBe('primary of billing: a at 10.0.0.7:8080 (this instance)');
    expect(describePrimaryEvent({ ...base, event: 'primary', primary: 'b', endpoint: null })).toBe('primary of billing: b');
    expect(describePrimaryEvent({ ...base, event: 'primary', primary: null, endpoint: null })).toBe('primary of billing: none');
    expect(describePrimaryEvent({ ...base, event: 'stopped-acting', reason: 'superseded', actedForMs: 12_345 })).toBe(
      'stopped acting as primary of billing: superseded, after 12.3 s',
    );
  });

  it('--id gives the first term its id and later terms ID-2, ID-3', () => {
    const given = idGenerator('web-1');
    expect([given(), given(), given()]).toEqual(['web-1', 'web-1-2', 'web-1-3']);
  });
});

describe('roster primary get output', () => {
  const entry = { id: 'a1', utype: 'billing', timestamp: 1000, endpoint: '10.0.0.7:8080' };

  it('a live entry is the primary, with its endpoint and age', () => {
    const result = toResult('billing', { state: 'live', entry, ageMs: 412, storeTime: 1412 });
    expect(result).toEqual({ utype: 'billing', state: 'live', primary: 'a1', endpoint: '10.0.0.7:8080', ageMs: 412, storeTime: 1412 });
    expect(describeResult(result)).toBe('primary of billing: a1 at 10.0.0.7:8080 (heartbeat 412 ms ago)');
  });

  it('a heartbeat written between the time read and the entry read shows as age 0, not in the future', () => {
    expect(toResult('billing', { state: 'live', entry, ageMs: -3, storeTime: 997 }).ageMs).toBe(0);
  });

  it('an expired, released, corrupt or empty entry is no primary, and says why', () => {
    const expired = toResult('billing', { state: 'expired', entry, ageMs: 7200, storeTime: 8200 });
    expect(expired).toMatchObject({ state: 'expired', primary: null, endpoint: null, ageMs: null, last: { id: 'a1', ageMs: 7200, released: false } });
    expect(describeResult(expired)).toBe('primary of billing: none (the last one, a1 at 10.0.0.7:8080, last heartbeat 7.2 s ago)');
    const released = toResult('billing', { state: 'expired', entry: { id: 'a1', utype: 'billing', timestamp: 0 }, ageMs: 9000, storeTime: 9000 });
    expect(describeResult(released)).toBe('primary of billing: none (the last one, a1, released the role)');
    const corrupt = toResult('billing', { state: 'corrupt', reason: 'not JSON', storeTime: 1 });
    expect(describeResult(corrupt)).toBe('primary of billing: none (the entry is corrupt: not JSON)');
    expect(describeResult(toResult('billing', { state: 'empty', storeTime: 1 }))).toBe('primary of billing: none');
  });
});

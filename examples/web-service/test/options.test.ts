import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../src/options.js';

describe('parseOptions', () => {
  it('needs --store and fills in the defaults', () => {
    expect(parseOptions(['--store', 'redis://127.0.0.1:6379', '--id', 'w1'])).toEqual({
      store: 'redis://127.0.0.1:6379',
      id: 'w1',
      env: 'dev',
      port: 8080,
      host: '127.0.0.1',
      intervalMs: 1000,
      timeoutMs: 5000,
      periodMs: 1000,
    });
    expect(parseOptions(['--store', 'redis://x', '--interval-ms', '100', '--port', '0'])).toMatchObject({ intervalMs: 100, timeoutMs: 500, port: 0 });
  });

  it('reads --help as a request for the usage', () => {
    expect(parseOptions(['--help'])).toBeUndefined();
  });

  it('rejects a missing --store, an unknown flag, a bad number and a bad port with a UsageError naming the flag', () => {
    expect(() => parseOptions([])).toThrow(/--store is required/);
    expect(() => parseOptions(['--store', 'redis://x', '--bogus'])).toThrow(UsageError);
    expect(() => parseOptions(['--store', 'redis://x', '--period-ms', '0'])).toThrow(/--period-ms: expected an integer ≥ 1, got "0"/);
    expect(() => parseOptions(['--store', 'redis://x', '--port', '70000'])).toThrow(/--port: expected a port from 0 to 65535/);
  });
});

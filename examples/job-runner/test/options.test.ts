import { describe, expect, it } from 'vitest';
import { parseOptions, UsageError } from '../src/options.js';

describe('parseOptions', () => {
  it('needs --store and fills in the defaults, the queue on the same store', () => {
    const options = parseOptions(['--store', 'redis://127.0.0.1:6379', '--id', 'w1'])!;
    expect(options).toMatchObject({ store: 'redis://127.0.0.1:6379', data: 'redis://127.0.0.1:6379', id: 'w1', env: 'dev', jobs: 12 });
    expect(options).toMatchObject({ intervalMs: 1000, timeoutMs: 5000, renewDeadlineMs: undefined, periodMs: 1000, workMs: 200, pollMs: 250 });
  });

  it('reads --help as a request for the usage', () => {
    expect(parseOptions(['--help'])).toBeUndefined();
  });

  it('rejects a missing --store, an unknown flag and a bad number with a UsageError naming the flag', () => {
    expect(() => parseOptions([])).toThrow(/--store is required/);
    expect(() => parseOptions(['--store', 'redis://x', '--bogus'])).toThrow(UsageError);
    expect(() => parseOptions(['--store', 'redis://x', '--jobs', '1.5'])).toThrow(/--jobs: expected an integer ≥ 0, got "1.5"/);
    expect(() => parseOptions(['--store', 'redis://x', '--interval-ms', '0'])).toThrow(/--interval-ms/);
  });
});

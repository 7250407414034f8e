import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { fakeIO } from './support/fakeIO.js';

/** `roster verify`'s arguments; the runs themselves are test/verify.test.ts's, on real stores. */
describe('roster verify', () => {
  it('--help says what it checks, how safe it is on production, and its exit codes', async () => {
    const io = fakeIO();
    expect(await runCli(['verify', '--help'], io)).toBe(0);
    expect(io.out).toMatch(/^Usage: roster verify \[--store URL \| --store-file PATH\] \[options\]/);
    expect(io.out).toContain('roster-verify-');
    expect(io.out).toMatch(/1 {2}a violation/);
    expect(io.out).toMatch(/5 {2}inconclusive: no violation, but no network cut reached a connection to the store/);
  });

  it.each([
    [['verify'], /^roster verify: missing --store/],
    [['verify', '--store', 'redis://h', '--duration', '1'], /^roster verify: --duration must be an integer from 5 to 86400 \(seconds\), got "1"\n$/],
    [['verify', '--store', 'redis://h', '--nodes', '1'], /^roster verify: --nodes must be an integer from 2 to 16, got "1"\n$/],
    [['verify', '--store', 'redis://h', '--faults', 'cut-silent,meteor'], /^roster verify: --faults must be a comma-separated list of cut-silent, .*, got "cut-silent,meteor"\n$/],
    [['verify', '--store', 'redis://h', '--faults', 'store-kill'], /^roster verify: --faults must be/],
  ])('refuses %j with one line and exit code 2', async (args, message) => {
    const io = fakeIO();
    expect(await runCli(args, io)).toBe(2);
    expect(io.err).toMatch(message);
    expect(io.out).toBe('');
  });

  it('says so when the store cannot be reached, with exit code 2 and the password hidden', async () => {
    const io = fakeIO();
    expect(await runCli(['verify', '--store', 'redis://:s3cret@127.0.0.1:1', '--connect-timeout', '300'], io)).toBe(2);
    expect(io.err).toMatch(/^roster verify: Could not connect to the store/m);
    expect(io.err).not.toContain('s3cret');
  });
});

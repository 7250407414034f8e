import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import { fakeIO } from './support/fakeIO.js';


describe('runCli', () => {
  it('--help lists the commands; `help node` and `node --help` print the node usage', async () => {
    const io = fakeIO();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/Commands:\n {2}node +run one node/);
    const byHelp = fakeIO();
    expect(await runCli(['help', 'node'], byHelp)).toBe(0);
    const byFlag = fakeIO();
    expect(await runCli(['node', '--help'], byFlag)).toBe(0);
    expect(byFlag.out).toBe(byHelp.out);
    expect(byFlag.out).toMatch(/^Usage: roster node \[--store URL \| --store-file PATH\] --group GROUP --env ENV/);
  });

  it('--log-format takes text or json, and says so of anything else', async () => {
    const io = fakeIO();
    expect(await runCli(['node', '--log-format', 'yaml', '--store', 'redis://127.0.0.1:1', '--group', 'k', '--env', 'e'], io)).toBe(2);
    expect(io.err).toBe('roster node: --log-format must be text or json, got "yaml"\n');
  });

  it('--version and -V print the version of the package, and nothing else', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const io = fakeIO();
      expect(await runCli([flag], io)).toBe(0);
      expect(io.out).toBe(`${version}\n`);
      expect(io.err).toBe('');
    }
  });

  it.each([
    [['node', '--env', 'x', '--store', 'redis://h'], 'roster node: missing --group (e.g. --group billing)'],
    [['node', '--store'], 'roster node: option --store needs a value (see `roster node --help`)'],
    [['node', 'extra'], 'roster node: unexpected argument "extra" (see `roster node --help`)'],
    [['node', '--store', 'redis://h', '--group', 'k', '--env', 'e', '--timeout', '0'], 'roster node: --timeout must be an integer ≥ 1 (milliseconds), got "0"'],
    [
      ['node', '--store', 'redis://h', '--group', 'k', '--env', 'e', '--interval', '100', '--timeout', '150'],
      'roster node: --timeout 150 is not more than twice --interval 100 (2 × 100 = 200): set --timeout to at least 202 or --interval to at most 74',
    ],
    [['node', '--store', 'redis://h', '--group', 'k', '--env', 'e', '--id', 'no spaces'], 'roster node: invalid --id: Expected `id` to be 1 to 128 characters of letters, digits and . _ @ - (no whitespace), got "no spaces"'],
    [['--verbose'], 'roster: expected a command before --verbose (see `roster --help`)'],
    // The demo is not in the published cli: it is the repository's private @roster/demo (`pnpm demo`).
    [['demo'], 'roster: unknown command "demo" (see `roster --help`)'],
  ])('%j exits 2 with one line', async (args, line) => {
    const io = fakeIO();
    expect(await runCli(args, io)).toBe(2);
    expect(io.err).toBe(`${line}\n`);
    expect(io.out).toBe('');
  });

  it('an unexpected error is exit code 1 with its stack', async () => {
    const io = fakeIO();
    const boom = { name: 'boom', summary: '', help: '', run: () => Promise.reject(new Error('kaput')) };
    expect(await runCli(['boom'], io, { commands: [boom] })).toBe(1);
    expect(io.err).toMatch(/^roster: unexpected error: Error: kaput/);
  });
});

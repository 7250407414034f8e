/**
 * `pnpm demo`'s command line: its flags come from `@roster/cli`'s one table (`defineFlags`), its
 * errors and exit codes from `runCli`, as `main.ts` runs it. docs/cli.md's `<!-- flags:demo -->`
 * table is the table's; to rewrite it after changing a flag:
 *
 *   ROSTER_UPDATE_DOCS=1 pnpm --filter @roster/demo exec vitest run test/command.test.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { runCli } from '@roster/cli';
import { describe, expect, it } from 'vitest';
import { DEMO_FLAGS, demoCommand } from '../src/command.js';
import { fakeIO } from './support/fakeIO.js';

/** As `main.ts` runs it. */
function demo(args: readonly string[], io = fakeIO()): Promise<number> {
  return runCli([demoCommand.name, ...args], io, { program: 'pnpm demo', commands: [demoCommand] });
}

describe('pnpm demo: the command line', () => {
  it('--help prints the usage, every flag with its help line from the table', async () => {
    const io = fakeIO();
    expect(await demo(['--help'], io)).toBe(0);
    expect(io.out).toMatch(/^Usage: pnpm demo \[options\]/);
    for (const key of DEMO_FLAGS.keys) expect(io.out, DEMO_FLAGS.name(key)).toContain(DEMO_FLAGS.helpLines([key], { column: 21 }).split('\n')[0]);
  });

  it('every flag its --help names is one it accepts', () => {
    const options = DEMO_FLAGS.parseArgsOptions as NonNullable<ParseArgsConfig['options']>;
    const named = [...new Set([...demoCommand.help.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1]!))];
    expect(named.length).toBeGreaterThan(5);
    for (const flag of named) {
      const name = flag.startsWith('--') ? flag.slice(2) : Object.keys(options).find((key) => options[key]!.short === flag.slice(1));
      const spec = name === undefined ? undefined : options[name];
      expect(spec, flag).toBeDefined();
      expect(() => parseArgs({ args: spec!.type === 'string' ? [flag, 'x'] : [flag], options, strict: true, allowPositionals: false }), flag).not.toThrow();
    }
  });

  it.each([
    [['--nodes', 'many'], 'pnpm demo: --nodes must be an integer from 1 to 50, got "many"'],
    [['--store-kind', 'etcd'], 'pnpm demo: --store-kind must be auto, redis, cluster or memory, got "etcd"'],
    [['--cluster', '--store-kind', 'memory'], 'pnpm demo: --cluster runs on a Redis Cluster; it cannot be combined with --store-kind memory'],
    [['--interval', '500', '--timeout', '1000'], 'pnpm demo: --timeout 1000 is not more than twice --interval 500 (2 × 500 = 1000): set --timeout to at least 1002 or --interval to at most 499'],
    [['--interval', '500'], 'pnpm demo: the default --timeout 1000 is not more than twice --interval 500 (2 × 500 = 1000): set --timeout to at least 1002 or --interval to at most 499'],
    [['--web-port', 'later'], 'pnpm demo: --web-port must be an integer from 0 to 65535, or off, got "later"'],
    [['extra'], 'pnpm demo: unexpected argument "extra" (see `pnpm demo --help`)'],
  ])('%j exits 2 with one line', async (args, line) => {
    const io = fakeIO();
    expect(await demo(args, io)).toBe(2);
    expect(io.err).toBe(`${line}\n`);
    expect(io.out).toBe('');
  });
});

describe('docs/cli.md says what pnpm demo --help says', () => {
  const DOC = new URL('../../../docs/cli.md', import.meta.url);
  const open = '<!-- flags:demo -->\n';
  const close = '\n<!-- /flags:demo -->';
  let doc = readFileSync(DOC, 'utf8');
  const start = doc.indexOf(open);
  const end = doc.indexOf(close, start);
  if (process.env.ROSTER_UPDATE_DOCS === '1' && start >= 0 && end >= 0) {
    doc = doc.slice(0, start + open.length) + DEMO_FLAGS.markdown() + doc.slice(end);
    writeFileSync(DOC, doc);
  }

  it('<!-- flags:demo --> is the table the code gives', () => {
    const at = doc.indexOf(open);
    const to = doc.indexOf(close, at);
    expect(at >= 0 && to >= 0, 'docs/cli.md lacks the markers <!-- flags:demo --> … <!-- /flags:demo -->').toBe(true);
    expect(doc.slice(at + open.length, to), 'run ROSTER_UPDATE_DOCS=1 pnpm --filter @roster/demo exec vitest run test/command.test.ts').toBe(DEMO_FLAGS.markdown());
  });
});

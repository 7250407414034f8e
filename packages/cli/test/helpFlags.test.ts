import { parseArgs, type ParseArgsConfig } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clusterTestCommand, CLUSTER_TEST_FLAGS } from '../src/commands/clusterTest.js';
import { commands } from '../src/commands/index.js';
import { NODE_FLAGS, nodeCommand } from '../src/commands/node.js';
import { PRIMARY_GET_FLAGS, PRIMARY_RUN_FLAGS, primaryCommand } from '../src/commands/primary.js';
import { VERIFY_FLAGS, verifyCommand } from '../src/commands/verify.js';
import type { FlagMap, FlagTable, HelpLayout } from '../src/internal/flags.js';

/** What these checks read of a flag table. */
interface TableLike {
  readonly keys: readonly string[];
  readonly parseArgsOptions: object;
  helpLines(keys: readonly string[], layout?: HelpLayout): string;
  name(key: string): string;
}

function like<F extends FlagMap>(table: FlagTable<F>): TableLike {
  return {
    keys: table.keys,
    parseArgsOptions: table.parseArgsOptions,
    helpLines: (keys, layout) => table.helpLines(keys as (keyof F)[], layout),
    name: (key) => table.name(key as keyof F),
  };
}
import { runCli } from '../src/runCli.js';
import { fakeIO } from './support/fakeIO.js';

type Specs = NonNullable<ParseArgsConfig['options']>;

/** Every flag a help text names: `--long-name` or `-x`, not a hyphen inside a word. */
function flagsNamed(help: string): string[] {
  return [...new Set([...help.matchAll(/(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])/g)].map((m) => m[1]!))].sort();
}

/** True when one of the parsers takes `flag` (with a value when it wants one). */
function accepted(flag: string, parsers: readonly Specs[]): boolean {
  return parsers.some((options) => {
    const name = flag.startsWith('--') ? flag.slice(2) : Object.keys(options).find((key) => options[key]!.short === flag.slice(1));
    const spec = name === undefined ? undefined : options[name];
    if (spec === undefined) return false;
    try {
      parseArgs({ args: spec.type === 'string' ? [flag, 'x'] : [flag], options, strict: true, allowPositionals: false });
      return true;
    } catch {
      return false;
    }
  });
}

/** `roster` answers `--help` and `-h` after any command itself, before the command's parser. */
const ROSTER_GLOBAL = ['--help', '-h'];

const COMMANDS: readonly { name: string; help: string; tables: readonly TableLike[]; global: readonly string[] }[] = [
  { name: 'roster node', help: nodeCommand.help, tables: [like(NODE_FLAGS)], global: ROSTER_GLOBAL },
  { name: 'roster primary', help: primaryCommand.help, tables: [like(PRIMARY_RUN_FLAGS), like(PRIMARY_GET_FLAGS)], global: ROSTER_GLOBAL },
  { name: 'roster verify', help: verifyCommand.help, tables: [like(VERIFY_FLAGS)], global: ROSTER_GLOBAL },
  { name: 'cluster-test', help: clusterTestCommand.help, tables: [like(CLUSTER_TEST_FLAGS)], global: [] },
];
const PARSERS = COMMANDS.map((c) => ({ ...c, parsers: c.tables.map((t) => t.parseArgsOptions as Specs) }));

describe('every flag a --help names is one its command accepts', () => {
  it('covers every roster command', () => {
    expect(commands.map((c) => `roster ${c.name}`).sort()).toEqual(PARSERS.filter((p) => p.name.startsWith('roster ')).map((p) => p.name).sort());
  });

  for (const { name, help, parsers, global } of PARSERS) {
    it(`${name} --help`, () => {
      const named = flagsNamed(help);
      expect(named.length).toBeGreaterThan(3);
      expect(named.filter((flag) => !global.includes(flag) && !accepted(flag, parsers))).toEqual([]);
    });
  }

  it('roster --help names only --help and --version, which it answers', async () => {
    const io = fakeIO();
    expect(await runCli(['--help'], io)).toBe(0);
    const named = flagsNamed(io.out);
    expect(named).toEqual(['--help', '--version']);
    for (const flag of named) expect(await runCli([flag], fakeIO())).toBe(0);
  });

  it('the check finds a flag that does not exist', () => {
    expect(accepted('--status-port', [CLUSTER_TEST_FLAGS.parseArgsOptions as Specs])).toBe(false);
    expect(accepted('-r', [CLUSTER_TEST_FLAGS.parseArgsOptions as Specs])).toBe(true);
    expect(flagsNamed('use --store-file or -r, not read-only or T - I')).toEqual(['--store-file', '-r']);
  });
});

describe('every flag a command accepts is in its --help, with its help line from the table', () => {
  for (const { name, help, tables } of COMMANDS) {
    it(name, () => {
      const layout: HelpLayout = name === 'cluster-test' ? { column: 28 } : {};
      for (const table of tables) {
        for (const key of table.keys) expect(help, table.name(key)).toContain(table.helpLines([key], layout).split('\n')[0]);
      }
    });
  }
});

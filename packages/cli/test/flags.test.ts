import { describe, expect, it } from 'vitest';
import { CliError } from '../src/CliError.js';
import { defineFlags, flag, flagsMarkdown, helpFlag, wrap } from '../src/internal/flags.js';

/** A small table of every kind of flag. */
function table(groupName = 'group') {
  return defineFlags('roster try', {
    group: flag.string(groupName, { placeholder: 'GROUP', help: 'the group', required: { example: 'billing' }, fields: ['groupName'] }),
    id: flag.string('id', { placeholder: 'ID', help: 'an id' }),
    ca: flag.string('tls-ca', { placeholder: 'FILE', env: 'ROSTER_TLS_CA', help: 'a CA' }),
    intervalMs: flag.integer('interval', { placeholder: 'MS', unit: 'milliseconds', help: 'the period I', defaultValue: 1000 }),
    port: flag.integer('port', { placeholder: 'PORT', min: 0, max: 65535, help: 'a port' }),
    seconds: flag.decimal('every', { placeholder: 'S', unit: 'seconds', help: 'how often' }),
    format: flag.choice('format', { placeholder: 'FORMAT', choices: ['text', 'json'], defaultValue: 'text', help: 'the format' }),
    web: flag.custom('web', {
      placeholder: 'PORT|off',
      expected: 'a port, or off',
      parse: (raw): number | null | undefined => (raw === 'off' ? null : /^\d+$/.test(raw) ? Number(raw) : undefined),
      defaultValue: 0,
      help: 'the web page',
    }),
    json: flag.boolean('json', { help: 'JSON lines' }),
    help: helpFlag(),
  });
}

function error(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    return (e as Error).message;
  }
  throw new Error('expected a CliError');
}

describe('a flag table', () => {
  it('gives typed values, with the defaults, and where each came from', () => {
    const parsed = table().parse(['--group', 'billing', '--port', '0', '--every', '2.5', '--web', 'off', '--json'], { ROSTER_TLS_CA: '/ca.pem' });
    expect(parsed.values).toEqual({
      group: 'billing',
      id: undefined,
      ca: '/ca.pem',
      intervalMs: 1000,
      port: 0,
      seconds: 2.5,
      format: 'text',
      web: null,
      json: true,
      help: false,
    });
    expect(parsed.source('group')).toEqual({ kind: 'flag', name: '--group' });
    expect(parsed.source('ca')).toEqual({ kind: 'env', name: 'ROSTER_TLS_CA' });
    expect(parsed.source('intervalMs')).toEqual({ kind: 'default' });
    expect([parsed.given('ca'), parsed.given('intervalMs')]).toEqual([true, false]);
    expect([parsed.label('ca'), parsed.label('intervalMs')]).toEqual(['ROSTER_TLS_CA', '--interval']);
    expect([parsed.keyOfField('group'), parsed.keyOfField('groupName')]).toEqual(['group', 'group']);
  });

  it('a flag wins over its variable; an empty variable counts as absent', () => {
    expect(table().parse(['--group', 'k', '--tls-ca', '/flag.pem'], { ROSTER_TLS_CA: '/env.pem' }).values.ca).toBe('/flag.pem');
    expect(table().parse(['--group', 'k'], { ROSTER_TLS_CA: '' }).source('ca')).toEqual({ kind: 'default' });
  });

  it.each([
    [['--interval', '0'], 'roster try: --interval must be an integer ≥ 1 (milliseconds), got "0"'],
    [['--port', '70000'], 'roster try: --port must be an integer from 0 to 65535, got "70000"'],
    [['--every=-1'], 'roster try: --every must be a number ≥ 0 (seconds), got "-1"'],
    [['--format', 'yaml'], 'roster try: --format must be text or json, got "yaml"'],
    [['--web', 'later'], 'roster try: --web must be a port, or off, got "later"'],
    [['--colour'], 'roster try: unknown option --colour (see `roster try --help`)'],
    [['--group'], 'roster try: option --group needs a value (see `roster try --help`)'],
  ])('%j: one line naming the flag and the bad value', (args, message) => {
    expect(error(() => table().parse(['--group', 'k', ...args], {}))).toBe(message);
  });

  it('a required flag missing or empty names itself with an example', () => {
    expect(error(() => table().parse([], {}))).toBe('roster try: missing --group (e.g. --group billing)');
    expect(error(() => table().parse(['--group', ' '], {}))).toBe('roster try: missing --group (e.g. --group billing)');
  });

  it('renaming a flag is one change: its name, in parsing, messages, help and docs', () => {
    const renamed = table('team');
    expect(renamed.parse(['--team', 'billing'], {}).values.group).toBe('billing');
    expect(error(() => renamed.parse([], {}))).toBe('roster try: missing --team (e.g. --team billing)');
    expect(renamed.syntax('group')).toBe('--team GROUP');
    expect(renamed.helpLines(['group'])).toBe('  --team GROUP          the group');
    expect(renamed.markdown()).toContain('| `--team GROUP` | the group | required |  |');
    expect(renamed.keyOfField('groupName')).toBe('group');
  });

  it('help lines: the syntax, then the text with its default and variable, wrapped; a long syntax on a line of its own', () => {
    const t = table();
    expect(t.helpLines(['intervalMs', 'ca', 'help'])).toBe(
      ['  --interval MS         the period I [default: 1000]', '  --tls-ca FILE         a CA [env: ROSTER_TLS_CA]', '  -h, --help            show this help'].join('\n'),
    );
    const long = defineFlags('x', {
      name: flag.string('tls-server-name', { placeholder: 'NAME', help: 'the name the server certificate must carry', defaultText: 'the host of --store' }),
    });
    expect(long.helpLines(undefined, { width: 80 })).toBe(
      ['  --tls-server-name NAME', '                        the name the server certificate must carry', '                        [default: the host of --store]'].join('\n'),
    );
    expect(wrap('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
  });

  it('a flag shown short (cluster-test) is named short everywhere', () => {
    const t = defineFlags('cluster-test', { store: flag.string('store', { short: 'r', preferShort: true, placeholder: 'URL', help: 'the store' }) });
    expect(t.name('store')).toBe('-r');
    expect(t.helpLines()).toBe('  -r URL                the store');
    expect(t.parse(['-r', 'x'], {}).source('store')).toEqual({ kind: 'flag', name: '-r' });
    expect(t.parse(['--store', 'x'], {}).values.store).toBe('x');
  });

  it('the Markdown table escapes pipes and marks a flag only some subcommands take', () => {
    const run = defineFlags('p run', { a: flag.string('shared', { placeholder: 'A', help: 'both' }), b: flag.boolean('only-run', { help: 'run | only' }) });
    const get = defineFlags('p get', { a: run.flags.a, c: flag.string('web', { placeholder: 'PORT|off', help: 'get only' }) });
    expect(
      flagsMarkdown([
        { table: run, label: 'run' },
        { table: get, label: 'get' },
      ]),
    ).toBe(
      [
        '| option | meaning | default | environment |',
        '|---|---|---|---|',
        '| `--shared A` | both |  |  |',
        '| `--only-run` | `run`: run \\| only |  |  |',
        '| `--web PORT\\|off` | `get`: get only |  |  |',
      ].join('\n'),
    );
  });

  it('refuses a table with two flags of one name or one short alias', () => {
    expect(() => defineFlags('x', { a: flag.boolean('same', { help: '' }), b: flag.boolean('same', { help: '' }) })).toThrow(/--same declared twice/);
    expect(() => defineFlags('x', { a: flag.boolean('a', { short: 'v', help: '' }), b: flag.boolean('b', { short: 'v', help: '' }) })).toThrow(/-v declared twice/);
  });
});

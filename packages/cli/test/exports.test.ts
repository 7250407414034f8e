import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/cli', () => {
  it('exports exactly what runs the commands at run time (the JSON contracts are types; the metrics and probes are @roster/http\'s)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual(['CliError', 'ExitCode', 'commands', 'processIO', 'runCli']);
  });

  it('@roster/cli/internal: only what the repository’s private demo builds on (not a public API)', async () => {
    expect(Object.keys(await import('../src/internal/index.js')).sort()).toEqual([
      'DASHBOARD_CSS',
      'FlagTable',
      'NODE_TIMING',
      'StopRequest',
      'configProblem',
      'defineFlags',
      'describeNodeEvent',
      'flag',
      'helpFlag',
      'jsonForScript',
      'problem',
      'toNodeEvent',
    ]);
  });

  it('runs no demo: no `demo` command, and tinypool is no dependency', async () => {
    const { commands } = await import('../src/index.js');
    expect(commands.map((c) => c.name)).not.toContain('demo');
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain('tinypool');
  });
});

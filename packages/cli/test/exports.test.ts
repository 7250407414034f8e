import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/cli', () => {
  it('exports exactly what runs the commands at run time (the JSON contracts are types; the metrics and probes are @roster/http\'s)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual(['CliError', 'ExitCode', 'commands', 'processIO', 'runCli']);
  });
});

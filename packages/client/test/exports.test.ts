import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/client', () => {
  it('exports exactly connectDaemon, ConfigError and silentLogger at run time (the rest are types)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual(['ConfigError', 'connectDaemon', 'silentLogger']);
  });
});

import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/http', () => {
  it('exports exactly observe(), the metrics, the probes and the handlers at run time (the rest are types)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'InstrumentedKV',
      'PromRosterMetrics',
      'createMetricsHandler',
      'createProbeHandler',
      'liveness',
      'noopMetrics',
      'observe',
      'readiness',
      'watchNodeMetrics',
      'watchProbes',
    ]);
  });
});

import { describe, expect, it } from 'vitest';

// Widening the public API is a deliberate diff: add the name here and document it.
describe('the public API of @roster/cluster', () => {
  it('exports exactly createCluster, the balancing rule and its error at run time (the handle is a type)', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual(['ClusterLeftError', 'computeBalance', 'createCluster']);
  });
});

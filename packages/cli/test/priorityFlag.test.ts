import { describe, expect, it } from 'vitest';
import { NODE_FLAGS, parsePriority } from '../src/commands/node.js';

const REQUIRED = ['--group', 'g', '--env', 'e'];

describe('roster node --priority', () => {
  it('takes an integer, or version:X.Y.Z as major × 1,000,000 + minor × 1,000 + patch; 0 when absent; ROSTER_PRIORITY when the flag is', () => {
    expect(NODE_FLAGS.parse([...REQUIRED, '--priority', '7'], {}).values.priority).toBe(7);
    expect(NODE_FLAGS.parse([...REQUIRED, '--priority', 'version:1.4.2'], {}).values.priority).toBe(1_004_002);
    expect(NODE_FLAGS.parse(REQUIRED, {}).values.priority).toBe(0);
    expect(NODE_FLAGS.parse(REQUIRED, { ROSTER_PRIORITY: 'version:2.0.0' }).values.priority).toBe(2_000_000);
  });

  it('refuses anything else with one line naming the flag and what it takes', () => {
    for (const bad of ['-1', '1.5', 'x', '', '01', 'version:1.4', 'version:1.4.2-rc.1', '1000000000000']) expect(parsePriority(bad), bad).toBeUndefined();
    expect(() => NODE_FLAGS.parse([...REQUIRED, '--priority', 'version:1.4'], {})).toThrow(/--priority must be an integer from 0 to 999999999999 or version:MAJOR\.MINOR\.PATCH .*got "version:1\.4"/);
  });
});

import { RosterError } from '@roster/kv-adapter';
import { describe, expect, it } from 'vitest';
import { checkPriority, MAX_PRIORITY, priorityFromVersion } from '../src/index.js';

describe('priorityFromVersion', () => {
  it('orders releases: major × 1,000,000 + minor × 1,000 + patch', () => {
    expect(priorityFromVersion('1.4.2')).toBe(1_004_002);
    expect(priorityFromVersion('v2.0.0')).toBe(2_000_000);
    expect(priorityFromVersion('1.4.2+build.7')).toBe(1_004_002);
    expect(priorityFromVersion('0.0.0')).toBe(0);
    expect(priorityFromVersion('999999.999.999')).toBe(MAX_PRIORITY);
    expect(priorityFromVersion('1.10.0')).toBeGreaterThan(priorityFromVersion('1.9.99'));
  });

  it('refuses what has no place in that order with a typed error naming `priority`', () => {
    for (const bad of ['', '1.4', '1.4.2.1', '1.4.2-rc.1', '01.4.2', '1.1000.0', '1.0.1000', '1000000.0.0', ' 1.4.2', 'latest']) {
      let caught: unknown;
      try {
        priorityFromVersion(bad);
      } catch (error) {
        caught = error;
      }
      expect(RosterError.is(caught, 'CONFIG_INVALID'), bad).toBe(true);
      expect(caught).toMatchObject({ field: 'priority', value: bad });
    }
  });
});

describe('checkPriority', () => {
  it('takes an integer from 0 to MAX_PRIORITY', () => {
    for (const good of [0, 1, MAX_PRIORITY]) expect(() => checkPriority(good)).not.toThrow();
    for (const bad of [-1, 1.5, MAX_PRIORITY + 1, Number.NaN, Infinity, '3', undefined]) {
      expect(() => checkPriority(bad)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', field: 'priority' }));
    }
  });
});

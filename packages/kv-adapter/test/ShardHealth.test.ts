import { describe, expect, it } from 'vitest';
import type { Logger } from '../src/index.js';
import { VirtualClock } from '@roster/testing';
import { keySlot } from '../src/redis/keySlot.js';
import { isNodeFailure, ShardHealth, type Admission } from '../src/redis/ShardHealth.js';

/** Whether the admission asks for a background probe. */
const probed = (a: Admission): boolean => a.verdict !== 'send' && a.probe;

/** Slots 0–8191 on node A, 8192–16383 on node B. */
const slots = Array.from({ length: 16384 }, (_, slot) => [slot < 8192 ? 'A:1' : 'B:1']);
/** A key served by each node. */
const onA = ['k0', 'k1', 'k2', 'k3', 'k4'].find((k) => keySlot(k) < 8192)!;
const onB = ['k0', 'k1', 'k2', 'k3', 'k4'].find((k) => keySlot(k) >= 8192)!;

function setup() {
  const clock = new VirtualClock();
  const lines: string[] = [];
  const log = (level: string) => (_fields: object, message: string) => void lines.push(`${level} ${message}`);
  const logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } as unknown as Logger;
  const health = new ShardHealth({ clock, logger, store: 'test', slots: () => slots });
  return { clock, lines, health };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
const timedOut = new Error('Command timed out');

describe('keySlot', () => {
  it('computes the slots CLUSTER KEYSLOT gives, hash tags included', () => {
    expect(keySlot('123456789')).toBe(0x31c3 % 16384);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'));
  });
});

describe('ShardHealth', () => {
  it('a refused connection marks the node down at once: its keys are refused fast, the other node’s are sent', () => {
    const { health, lines } = setup();
    expect(health.admit(onA)).toEqual({ verdict: 'send', node: 'A:1' });
    health.failed('A:1', refused);
    expect(health.admit(onA)).toEqual({ verdict: 'key-down', node: 'A:1', probe: false });
    expect(health.admit(onB)).toEqual({ verdict: 'send', node: 'B:1' });
    expect(lines).toEqual(['warn redis: cluster node is down; failing its keys fast']);
  });

  it('one timeout may be a slow moment; the second in a row marks the node down, a success in between resets the count', () => {
    const { health } = setup();
    health.failed('A:1', timedOut);
    expect(health.isDown('A:1')).toBe(false);
    health.succeeded('A:1');
    health.failed('A:1', timedOut);
    expect(health.isDown('A:1')).toBe(false);
    health.failed('A:1', timedOut);
    expect(health.isDown('A:1')).toBe(true);
  });

  it('refuses every operation on a down node, and asks for one background probe per back-off (100 ms doubling to 1 s); a successful probe brings the node back, logged once', async () => {
    const { clock, health, lines } = setup();
    health.failed('A:1', refused);
    await clock.advance(99);
    expect(health.admit(onA)).toEqual({ verdict: 'key-down', node: 'A:1', probe: false });
    await clock.advance(1);
    expect(health.admit(onA)).toEqual({ verdict: 'key-down', node: 'A:1', probe: true });
    expect(probed(health.admit(onA))).toBe(false); // one probe at a time
    health.failed('A:1', refused);
    await clock.advance(199);
    expect(probed(health.admit(onA))).toBe(false);
    await clock.advance(1);
    expect(probed(health.admit(onA))).toBe(true);
    health.failed('A:1', refused);
    for (let i = 0; i < 10; i++) {
      await clock.advance(1000);
      expect(health.admit(onA)).toEqual({ verdict: 'key-down', node: 'A:1', probe: true });
      health.failed('A:1', refused);
    }
    await clock.advance(1000);
    expect(probed(health.admit(onA))).toBe(true);
    health.succeeded('A:1');
    expect(health.admit(onA)).toEqual({ verdict: 'send', node: 'A:1' });
    expect(lines).toEqual(['warn redis: cluster node is down; failing its keys fast', 'warn redis: cluster node is back']);
  });

  it('when every master is down the verdict is the store’s, not a key’s', () => {
    const { health, lines } = setup();
    health.failed('A:1', refused);
    expect(health.allDown).toBe(false);
    health.failed('B:1', refused);
    expect(health.allDown).toBe(true);
    expect(health.admit(onA).verdict).toBe('store-down');
    expect(lines.at(-1)).toBe('warn redis: every cluster node is down');
    health.succeeded('B:1');
    expect(health.allDown).toBe(false);
    expect(health.admit(onA).verdict).toBe('key-down');
  });

  it('error replies and programming errors say nothing about a node being down', () => {
    expect(isNodeFailure(Object.assign(new Error('WRONGTYPE x'), { name: 'ReplyError' }))).toBe(false);
    expect(isNodeFailure(new TypeError('x'))).toBe(false);
    expect(isNodeFailure(refused)).toBe(true);
    expect(isNodeFailure(timedOut)).toBe(true);
  });
});

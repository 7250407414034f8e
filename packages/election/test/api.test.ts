import { describe, expect, it } from 'vitest';
import { ConfigError, MemoryKV } from '@roster/kv-adapter';
import { VirtualClock } from '@roster/testing';
import { createNode, type RosterUpdate } from '../src/index.js';
import { Cluster, I, T } from './support/harness.js';

describe('config is validated once, with an error naming the field', () => {
  const kv = new MemoryKV();
  const base = { store: kv, group: 'c', env: 'e' };
  const cases: [string, Record<string, unknown>][] = [
    ['id', { id: '' }],
    ['id', { id: 'has space' }],
    ['id', { id: 'x'.repeat(129) }],
    ['id', { id: 'a:b' }],
    ['timeoutMs', { intervalMs: 100, timeoutMs: 200 }],
    ['intervalMs', { intervalMs: 0 }],
    ['intervalMs', { intervalMs: 1.5 }],
    ['renewDeadlineMs', { intervalMs: 100, timeoutMs: 500, renewDeadlineMs: 450 }],
    ['renewDeadlineMs', { intervalMs: 100, timeoutMs: 500, renewDeadlineMs: 100 }],
    ['nonceWindow', { nonceWindow: 0 }],
    ['weight', { weight: 0 }],
    ['group', { group: 'a b' }],
    ['env', { env: '' }],
    ['store', { store: {} }],
    ['observer', { observer: 'yes' }],
    ['listCache', { listCache: new Map() }],
    ['leaderWorkTimeoutMs', { intervalMs: 100, timeoutMs: 500, leaderWorkTimeoutMs: 501 }],
    ['leaderWorkTimeoutMs', { leaderWorkTimeoutMs: -1 }],
  ];
  for (const [field, bad] of cases) {
    it(`rejects ${JSON.stringify(bad).slice(0, 60)} naming \`${field}\``, () => {
      let error: unknown;
      try {
        createNode({ ...base, ...bad } as never);
      } catch (e) {
        error = e;
      }
      expect(ConfigError.is(error)).toBe(true);
      expect((error as ConfigError).field).toBe(field);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
    });
  }

  it('says why in the message, with the value', () => {
    expect(() => createNode({ ...base, intervalMs: 100, timeoutMs: 150 })).toThrow(
      'Expected `timeoutMs` to be greater than twice `intervalMs` (100), got 150',
    );
  });

  it('gives a fresh dashless UUID when no id is given', () => {
    const node = createNode(base);
    expect(node.id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('lifecycle and updates', () => {
  it('emits role, leader and members updates in order to watchers and async iterators', async () => {
    const c = new Cluster();
    const a = c.add('a');
    const seen: RosterUpdate['type'][] = [];
    a.watch((u) => seen.push(u.type));
    const iterated: RosterUpdate[] = [];
    const done = (async () => {
      for await (const u of a.updates()) iterated.push(u);
    })();
    await c.start('a');
    await c.until(() => a.isLeader(), 10 * T);
    await c.clock.advance(I);
    void a.stop();
    await c.clock.advance(I);
    await done;
    expect(seen).toEqual(['role', 'role', 'leader', 'members', 'role', 'stopped']);
    expect(iterated.map((u) => u.type)).toEqual(seen);
    expect(a.state).toBe('stopped');
  });

  it('a watch function that throws is logged and does not break the node', async () => {
    const c = new Cluster();
    const a = c.add('a');
    a.watch(() => {
      throw new Error('bad watcher');
    });
    await c.start('a');
    await c.until(() => a.isLeader(), 10 * T);
    expect(c.logs.get('a')!.entries.some((e) => e.level === 'error' && e.message === 'a watch function threw')).toBe(true);
    await c.stopAll();
  });

  it('breaking out of an updates() loop detaches it', async () => {
    const c = new Cluster();
    const a = c.add('a');
    const it1 = a.updates();
    await c.start('a');
    const next = it1.next();
    await c.until(() => a.isLeader(), 10 * T);
    const first = await next;
    expect(first.done).toBe(false);
    await it1.return!();
    expect((await it1.next()).done).toBe(true);
    await c.stopAll();
  });

  it('an updates() loop whose signal aborts ends (done, not a rejection), even while it waits, and buffers nothing after', async () => {
    const c = new Cluster();
    const a = c.add('a');
    const controller = new AbortController();
    const iterated: RosterUpdate['type'][] = [];
    const loop = (async () => {
      for await (const u of a.updates({ signal: controller.signal })) iterated.push(u.type);
      return 'ended';
    })();
    await c.start('a');
    await c.until(() => a.isLeader(), 10 * T);
    await c.clock.advance(0);
    expect(iterated).toContain('leader');
    const seen = iterated.length;
    controller.abort(new Error('no longer interested'));
    await expect(loop).resolves.toBe('ended');
    await a.resign();
    expect(iterated).toHaveLength(seen);
    const late = a.updates({ signal: AbortSignal.abort() });
    expect(await late.next()).toEqual({ value: undefined, done: true });
    await c.stopAll();
  });

  it('settings: the identity and timing the node runs with, every default applied, frozen', () => {
    const node = createNode({ store: new MemoryKV(), group: 'billing', env: 'prod', id: 'n1', intervalMs: 200 });
    expect(node.settings).toEqual({
      id: 'n1',
      group: 'billing',
      env: 'prod',
      intervalMs: 200,
      timeoutMs: 1000,
      renewDeadlineMs: 500,
      settleMs: 20,
      operationTimeoutMs: 100,
      leaderWorkTimeoutMs: 1000,
      nonceWindow: 4,
      weight: 1,
      priority: 0,
      observer: false,
    });
    expect(Object.isFrozen(node.settings)).toBe(true);
    expect(node.settings).toBe(node.settings);
    expect(() => ((node.settings as { intervalMs: number }).intervalMs = 5)).toThrow(TypeError);
    expect(createNode({ store: new MemoryKV(), group: 'c', env: 'e' }).settings.id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('aborting the signal given to createNode stops the node gracefully', async () => {
    const clock = new VirtualClock();
    const kv = new MemoryKV({ clock });
    const ac = new AbortController();
    const node = createNode({ store: kv, group: 'c', env: 'e', id: 'a', intervalMs: I, timeoutMs: T, clock, signal: ac.signal });
    void node.start();
    await clock.advanceUntil(() => node.isLeader(), 10 * T, 10);
    ac.abort();
    await clock.advance(I);
    expect(node.state).toBe('stopped');
    expect(await kv.get('roster/c/e/leader 0')).toMatch(/^1 0 \d+ a$/);
  });

  it('await using stops the node at the end of the scope', async () => {
    const clock = new VirtualClock();
    const kv = new MemoryKV({ clock });
    const node = createNode({ store: kv, group: 'c', env: 'e', id: 'a', intervalMs: I, timeoutMs: T, clock });
    void node.start();
    await clock.advance(0);
    const p = node[Symbol.asyncDispose]();
    await clock.advance(I);
    await p;
    expect(node.state).toBe('stopped');
    await node.stop();
  });

  it('the leadership signal aborts when leadership is lost', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    const leader = c.leaders()[0]!;
    const signal = leader.leadership!;
    expect(signal.aborted).toBe(false);
    leader.destroy();
    expect(signal.aborted).toBe(true);
    await c.stopAll();
  });
});

describe('store operations per interval (counted)', () => {
  it('a follower does 1 header read + 1 PING exchange per interval (and a scan of the W headers every 5T); the leader W header reads + 2 CAS (a publication and a beat) + W join takes + 1 PONG exchange per follower', async () => {
    const c = new Cluster();
    await c.start('a', 'b', 'c', 'd');
    await c.until(() => c.converged(), 20 * T);
    await c.clock.advance(2 * T);
    const leader = c.leaders()[0]!;
    const follower = c.live().find((n) => !n.isLeader())!;
    const before = new Map([...c.store.ops].map(([id, m]) => [id, new Map(m)]));
    const intervals = 50;
    await c.clock.advance(intervals * I);
    const per = (id: string, op: string) => ((c.store.ops.get(id)?.get(op) ?? 0) - (before.get(id)?.get(op) ?? 0)) / intervals;
    const W = 4;
    const followers = 3;
    // One header read per interval, and a scan of the W headers every 5T = 25 intervals.
    expect(per(follower.id, 'getRange')).toBeGreaterThanOrEqual(1);
    expect(per(follower.id, 'getRange')).toBeLessThanOrEqual(1 + (2 * W) / intervals);
    expect(per(follower.id, 'exchange')).toBeCloseTo(1, 1);
    // The member list did not change: the whole value is never read.
    expect(per(follower.id, 'get')).toBe(0);
    expect(per(follower.id, 'set')).toBe(0);
    expect(per(follower.id, 'append')).toBe(0);
    // The leader reads the W headers; its own publication and the older copies behind it are never read whole.
    expect(per(leader.id, 'getRange')).toBeCloseTo(W, 1);
    expect(per(leader.id, 'get')).toBe(0);
    expect(per(leader.id, 'compareAndSet')).toBeCloseTo(2, 1);
    expect(per(leader.id, 'take')).toBeCloseTo(W, 1);
    expect(per(leader.id, 'exchange')).toBeCloseTo(followers, 1);
    expect(per(leader.id, 'set')).toBe(0);
    await c.stopAll();
  });
});

describe('the latency sensor', () => {
  it('measures window reads and PING → PONG round trips', async () => {
    const c = new Cluster();
    await c.start('a', 'b');
    await c.until(() => c.converged(), 20 * T);
    await c.clock.advance(5 * I);
    const follower = c.live().find((n) => !n.isLeader())!;
    expect(follower.latency.windowReadMs).toBe(0);
    expect(follower.latency.pongRoundTripMs).toBeGreaterThan(0);
    expect(follower.latency.pongRoundTripMs).toBeLessThanOrEqual(2 * I);
    await c.stopAll();
  });
});

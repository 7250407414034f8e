import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { formatBroadcast, parseBroadcast } from '@roster/follower';
import type { KV } from '@roster/kv-adapter';
import { LeadershipLostError, type LeaderUpdate, type RoleUpdate, type RosterNode } from '../src/index.js';
import { Cluster, I, T } from './support/harness.js';

/** What a node wrote at the leader key by compare-and-set, with its role when it issued the write. */
interface LeaderWrite {
  readonly at: number;
  readonly kind: 'claim' | 'goodbye' | 'publication';
  /** The writer's role (`node.role`) when it issued the write. */
  readonly role: string;
}

/**
 * A cluster whose nodes' leader-key writes are recorded as they are issued (`writes`), with the
 * writer's role at that moment; `a` leads, `b` and `c` follow, all converged.
 */
async function group(ids = ['a', 'b', 'c'], options: { leaderWorkTimeoutMs?: number } = {}) {
  const c = new Cluster();
  const writes = new Map<string, LeaderWrite[]>();
  for (const id of ids) {
    const list: LeaderWrite[] = [];
    writes.set(id, list);
    let node: RosterNode | undefined;
    const kv = recordLeaderWrites(c.store.view(id), (value) => {
      const parsed = parseBroadcast(value);
      if (!parsed.ok) return;
      const b = parsed.broadcast;
      const kind = b.version === 0 ? 'claim' : b.members.length === 0 ? 'goodbye' : 'publication';
      list.push({ at: c.clock.now(), kind, role: node?.role ?? 'none' });
    });
    node = c.add(id, { store: kv, ...options });
  }
  await c.start(ids[0]!);
  await c.until(() => c.nodes.get(ids[0]!)!.isLeader(), 20 * T);
  await c.start(...ids.slice(1));
  await c.until(() => c.converged(), 20 * T, 'converged');
  return { c, writes, node: (id: string) => c.nodes.get(id)! };
}

/** `kv` with every compare-and-set at a leader key reported to `onWrite` when it is issued. */
function recordLeaderWrites(kv: KV, onWrite: (value: string) => void): KV {
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'compareAndSet' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (key: string, expected: string | null, next: string, options?: unknown) => {
        if (key.includes('/leader ')) onWrite(next);
        return (value as (...args: unknown[]) => unknown).call(target, key, expected, next, options);
      };
    },
  });
}

/** Every `role` update of `node`, with the time it came. */
function roleLog(c: Cluster, node: RosterNode): (RoleUpdate & { at: number })[] {
  const log: (RoleUpdate & { at: number })[] = [];
  node.on('role', (u) => log.push({ ...u, at: c.clock.now() }));
  return log;
}

/** When some node other than `except` was first told it leads, from now on. */
function firstOtherLeader(c: Cluster, except: string): { at?: number; id?: string } {
  const seen: { at?: number; id?: string } = {};
  for (const [id, n] of c.nodes) {
    if (id === except) continue;
    n.on('role', (u) => {
      if (u.role === 'leader' && seen.at === undefined) Object.assign(seen, { at: c.clock.now(), id });
    });
  }
  return seen;
}

describe('resign()', () => {
  it('hands leadership over within about an interval: users are told `follower` (resigned) before the goodbye is written, and another node leads', async () => {
    const { c, writes, node } = await group();
    const a = node('a');
    const roles = roleLog(c, a);
    const signal = a.leadership!;
    const next = firstOtherLeader(c, 'a');
    const resignedAt = c.clock.now();
    const done = a.resign();
    // Told at once, and the leadership signal aborted with the reason.
    expect(roles).toEqual([{ type: 'role', role: 'follower', previous: 'leader', reason: 'resigned', at: resignedAt }]);
    expect(a.isLeader()).toBe(false);
    expect(signal.aborted).toBe(true);
    expect(LeadershipLostError.is(signal.reason) && signal.reason.reason).toBe('resigned');
    await c.until(() => next.at !== undefined, 3 * I, 'another leader');
    await done;
    // The situation: the goodbye was written, and `a` no longer called itself leader then.
    const goodbyes = writes.get('a')!.filter((w) => w.kind === 'goodbye');
    expect(goodbyes).toHaveLength(1);
    expect(goodbyes[0]!.role).toBe('follower');
    expect(next.at! - resignedAt).toBeLessThanOrEqual(2 * I);
    // `a` stays a member: it follows the new leader and is listed again.
    await c.until(() => c.converged(), 10 * I, 'converged with a listed');
    expect(a.state).toBe('running');
    expect(a.leader?.id).toBe(next.id);
    expect(node(next.id!).memberIds).toContain('a');
    await c.stopAll();
  });

  it('stands aside for T: the resigned node makes no claim in that time, though its goodbye makes every follower stand', async () => {
    const { c, writes, node } = await group();
    const resignedAt = c.clock.now();
    await node('a').resign();
    await c.clock.advance(T);
    // The situation: the others did stand (a claim), the resigned node did not.
    const claims = [...writes].flatMap(([id, list]) => list.filter((w) => w.kind === 'claim' && w.at >= resignedAt).map(() => id));
    expect(claims.length).toBeGreaterThan(0);
    expect(claims).not.toContain('a');
    expect(c.leaders().map((n) => n.id)).not.toContain('a');
    await c.stopAll();
  });

  it('alone in its group, a node that resigned leads again after standing aside', async () => {
    const { c, node } = await group(['a']);
    const a = node('a');
    const resignedAt = c.clock.now();
    await a.resign();
    expect(a.isLeader()).toBe(false);
    const took = await c.until(() => a.isLeader(), 4 * T, 'leading again');
    expect(c.clock.now() - resignedAt).toBeGreaterThanOrEqual(T);
    expect(took).toBeLessThanOrEqual(T + 4 * I);
    await c.stopAll();
  });

  it('does nothing on a follower, before start() and after stop(), and never rejects', async () => {
    const { c, node } = await group();
    const b = node('b');
    const roles = roleLog(c, b);
    await b.resign();
    expect(roles).toEqual([]);
    expect(node('a').isLeader()).toBe(true);
    const idle = c.add('idle');
    await expect(idle.resign()).resolves.toBeUndefined();
    await c.stopAll();
    await expect(node('a').resign()).resolves.toBeUndefined();
  });

  it('a stop() during a resignation waits for its goodbye; a destroy() cuts it short (no goodbye)', async () => {
    {
      const { c, writes, node } = await group(['a', 'b']);
      const a = node('a');
      a.whileLeader(({ signal }) => new Promise<void>((resolve) => signal.addEventListener('abort', () => c.clock.setTimer(resolve, 3 * I))));
      await c.clock.advance(0);
      const resigning = a.resign();
      const stopping = a.stop();
      await c.clock.advance(5 * I);
      await Promise.all([resigning, stopping]);
      expect(a.state).toBe('stopped');
      expect(writes.get('a')!.filter((w) => w.kind === 'goodbye')).toHaveLength(1);
      await c.stopAll();
    }
    {
      const { c, writes, node } = await group(['a', 'b']);
      const a = node('a');
      a.whileLeader(({ signal }) => new Promise<void>((resolve) => signal.addEventListener('abort', () => c.clock.setTimer(resolve, 3 * I))));
      await c.clock.advance(0);
      const resigning = a.resign();
      await c.clock.advance(I);
      a.destroy();
      await c.clock.advance(5 * I);
      await resigning;
      expect(writes.get('a')!.filter((w) => w.kind === 'goodbye')).toHaveLength(0);
      await c.stopAll();
    }
  });
});

describe('whileLeader()', () => {
  it('runs at each leadership with a signal that aborts on loss: a lapse (shown as candidate) aborts it, the re-validated lease runs it again', async () => {
    const { c, node } = await group();
    const a = node('a');
    const runs: { startedAt: number; signal: AbortSignal; token: bigint }[] = [];
    // Registered while leading: runs at once (in a microtask).
    a.whileLeader(({ signal, token }) => void runs.push({ startedAt: c.clock.now(), signal, token }));
    await c.clock.advance(0);
    expect(runs).toHaveLength(1);
    const outage = c.store.faults.storeOutage({ node: 'a' });
    await c.until(() => a.role === 'candidate', T, 'lapse');
    expect(runs[0]!.signal.aborted).toBe(true);
    expect((runs[0]!.signal.reason as LeadershipLostError).reason).toBe('store-unavailable');
    outage.heal();
    await c.until(() => a.isLeader(), 2 * T, 're-validated');
    await c.clock.advance(0);
    expect(runs).toHaveLength(2);
    expect(runs[1]!.signal.aborted).toBe(false);
    // The same leadership, re-validated: the same token.
    expect(runs[1]!.token).toBe(runs[0]!.token);
    expect(runs[0]!.token).toBe(a.leader!.token);
    await c.stopAll();
    expect(runs[1]!.signal.aborted).toBe(true);
    expect((runs[1]!.signal.reason as LeadershipLostError).reason).toBe('stopped');
  });

  it('each run gets the token of its leadership, the one its `leader` update told of; the next leadership a greater one', async () => {
    const c = new Cluster();
    const ids = ['a', 'b'];
    /** Per node: the token of each leadership of its own that a `leader` update told of, and each run's. */
    const told = new Map<string, bigint[]>(ids.map((id) => [id, []]));
    const ran = new Map<string, { token: bigint; era: number; frozen: boolean }[]>(ids.map((id) => [id, []]));
    for (const id of ids) {
      const n = c.add(id);
      n.on('leader', ({ leader }) => leader?.id === id && told.get(id)!.push(leader.token));
      n.whileLeader((leadership) => void ran.get(id)!.push({ token: leadership.token, era: leadership.era, frozen: Object.isFrozen(leadership) }));
    }
    await c.start('a');
    await c.until(() => c.nodes.get('a')!.isLeader(), 20 * T);
    await c.start('b');
    await c.until(() => c.converged(), 20 * T, 'converged');
    await c.clock.advance(0);
    const a = c.nodes.get('a')!;
    expect(ran.get('a')).toEqual([{ token: told.get('a')![0], era: a.leader!.era, frozen: true }]);

    await a.resign();
    await c.until(() => c.nodes.get('b')!.isLeader(), 4 * T, 'b leads');
    await c.clock.advance(0);
    const [first] = ran.get('a')!;
    const [second] = ran.get('b')!;
    expect(second!.token).toBe(told.get('b')![0]);
    expect(second!.token).toBe(c.nodes.get('b')!.leader!.token);
    expect(second!.token).toBeGreaterThan(first!.token);
    expect(second!.era).toBeGreaterThan(first!.era);
    await c.stopAll();
  });

  it('a leader dethroned by a better leadership aborts its work (dethroned); the new leader runs its own', async () => {
    const { c, node } = await group(['a', 'b']);
    const a = node('a');
    const signals = new Map<string, AbortSignal[]>();
    for (const n of [a, node('b')]) n.whileLeader(({ signal }) => void signals.set(n.id, [...(signals.get(n.id) ?? []), signal]));
    await c.clock.advance(0);
    const era = a.leader!.era;
    await c.store.inner.set('roster/test/spec/leader 3', formatBroadcast({ era: era + 5, nonce: 3, version: 0, id: 'zed', members: [{ id: 'zed', weight: 1 }] }));
    await c.until(() => !a.isLeader(), 5 * T, 'dethroned');
    const first = signals.get('a')![0]!;
    expect(first.aborted).toBe(true);
    expect((first.reason as LeadershipLostError).reason).toBe('dethroned');
    await c.until(() => c.converged(), 20 * T, 'converged');
    await c.clock.advance(0);
    const leader = c.leaders()[0]!;
    expect(signals.get(leader.id)!.at(-1)!.aborted).toBe(false);
    await c.stopAll();
  });

  it('starts on election, not before; the unregister function aborts the run and stops further runs', async () => {
    const c = new Cluster();
    const a = c.add('a');
    const starts: number[] = [];
    let current: AbortSignal | undefined;
    const unregister = a.whileLeader(({ signal }) => {
      starts.push(c.clock.now());
      current = signal;
    });
    await c.start('a');
    expect(starts).toEqual([]);
    await c.until(() => a.isLeader(), 20 * T);
    await c.clock.advance(0);
    expect(starts).toHaveLength(1);
    unregister();
    expect(current!.aborted).toBe(true);
    await a.resign();
    await c.until(() => a.isLeader(), 4 * T, 'leading again');
    await c.clock.advance(I);
    expect(starts).toHaveLength(1);
    await c.stopAll();
  });

  it('a throw or a rejection is logged once per change of state, never unhandled; a rejection after the abort is the normal end', async () => {
    const { c, node } = await group(['a']);
    const a = node('a');
    a.whileLeader(() => {
      throw new Error('sync boom');
    });
    a.whileLeader(() => Promise.reject(new Error('async boom')));
    a.whileLeader(({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))));
    await c.clock.advance(0);
    await a.resign();
    await c.until(() => a.isLeader(), 4 * T, 'leading again');
    await c.clock.advance(0);
    await c.stopAll();
    const failures = c.logs.get('a')!.entries.filter((e) => e.message === 'leader work failed');
    expect(failures.map((e) => (e.fields as { err: Error }).err.message).sort()).toEqual(['async boom', 'sync boom']);
  });

  it('stop() waits for the work to settle before its goodbye: the next leader starts after the work ended', async () => {
    const { c, writes, node } = await group();
    const a = node('a');
    let settledAt: number | undefined;
    a.whileLeader(
      ({ signal }) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () =>
            c.clock.setTimer(() => {
              settledAt = c.clock.now();
              resolve();
            }, 3 * I),
          ),
        ),
    );
    await c.clock.advance(0);
    const next = firstOtherLeader(c, 'a');
    const stopAt = c.clock.now();
    const stopping = a.stop();
    await c.until(() => next.at !== undefined, T + 2 * I, 'another leader');
    await stopping;
    // The situation: the work took 3I to wind down, and the goodbye came after it.
    expect(settledAt! - stopAt).toBe(3 * I);
    const goodbye = writes.get('a')!.find((w) => w.kind === 'goodbye');
    expect(goodbye?.at).toBeGreaterThanOrEqual(settledAt!);
    expect(next.at).toBeGreaterThanOrEqual(settledAt!);
    expect(next.at! - settledAt!).toBeLessThanOrEqual(2 * I);
    await c.stopAll();
  });

  it('resign() waits for the work too; work that does not settle is waited for leaderWorkTimeoutMs at most (logged)', async () => {
    const { c, writes, node } = await group(['a', 'b'], { leaderWorkTimeoutMs: 2 * I });
    const a = node('a');
    a.whileLeader(() => new Promise<never>(() => undefined));
    await c.clock.advance(0);
    const resignedAt = c.clock.now();
    const done = a.resign();
    await c.clock.advance(3 * I);
    await done;
    const goodbye = writes.get('a')!.find((w) => w.kind === 'goodbye');
    expect(goodbye!.at - resignedAt).toBe(2 * I);
    expect(c.logs.get('a')!.entries.some((e) => e.message?.includes('leader work did not settle in time'))).toBe(true);
    await c.stopAll();
  });

  it('leaderWorkTimeoutMs is validated: an integer from 0 to T', () => {
    const c = new Cluster();
    for (const bad of [-1, 1.5, T + 1, '100']) expect(() => c.add(`x${String(bad).replace(/\W/g, '')}`, { leaderWorkTimeoutMs: bad as number })).toThrow(/leaderWorkTimeoutMs/);
    expect(() => c.add('zero', { leaderWorkTimeoutMs: 0 })).not.toThrow();
  });
});

describe('listeners, the node:events way', () => {
  it('events.once(node, type) resolves with the next update of that type, and removes its listeners', async () => {
    const c = new Cluster();
    const a = c.add('a');
    const leader = once(a as never, 'leader') as Promise<[LeaderUpdate]>;
    await c.start('a');
    await c.until(() => a.isLeader(), 20 * T);
    const [update] = await leader;
    expect(update).toMatchObject({ type: 'leader', leader: { id: 'a' } });
    // A signal that aborts removes the listener too.
    const controller = new AbortController();
    const pending = once(a as never, 'goodbye', { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toThrow();
    await c.stopAll();
  });

  it('once() fires once; off() and removeListener() remove the last listener added with that function', async () => {
    const c = new Cluster();
    const a = c.add('a');
    const seen: string[] = [];
    const onRole = (u: RoleUpdate) => seen.push(`on ${u.role}`);
    const onceRole = (u: RoleUpdate) => seen.push(`once ${u.role}`);
    expect(a.once('role', onceRole)).toBe(a);
    a.on('role', onRole);
    a.on('role', onRole);
    expect(a.off('role', onRole)).toBe(a);
    await c.start('a');
    await c.until(() => a.isLeader(), 20 * T);
    expect(seen).toEqual(['once candidate', 'on candidate', 'on leader']);
    a.removeListener('role', onRole);
    a.once('role', onceRole).off('role', onceRole);
    await a.resign();
    expect(seen).toHaveLength(3);
    await c.stopAll();
  });
});

import { describe, expect, it } from 'vitest';
import { parseBroadcast, parseMember } from '@roster/follower';
import { LeadershipLostError } from '../src/errors.js';
import { LeaderRole } from '../src/LeaderRole.js';
import { NodeStats } from '../src/NodeStats.js';
import { KeyUnavailableError, type KV } from '@roster/kv-adapter';
import { Pace } from '@roster/follower/internal';
import { FaultInjector } from '@roster/testing';
import { withDeadline } from '@roster/kv-adapter/internal';
import { WindowFixture, broadcast } from './support/window.js';

const R = 250; // the renew deadline: T/2 with T = 500

/**
 * A leader `me` at era 1, nonce 0, whose claim is in the store, on a fresh fixture; `kv` wraps the
 * store the leader writes through.
 */
async function leader(options: { inherited?: { id: string; weight: number }[]; kv?: (kv: KV, f: WindowFixture) => KV } = {}) {
  const f = new WindowFixture();
  const claim = broadcast('me', 1, 0, 0);
  const raw = await f.put(claim);
  const lost: string[] = [];
  const pokes: number[] = [];
  const config = f.config('me');
  const role = new LeaderRole({
    host: {
      config: options.kv ? { ...config, kv: options.kv(config.kv, f) } : config,
      keys: f.keys,
      leaderKey: f.keys.leader(),
      stats: new NodeStats(),
      pace: new Pace({ paceRoundTripMs: config.timing.paceRoundTripMs, operationTimeoutMs: config.operationTimeoutMs }),
      read: () => f.read(),
      current: () => true,
      absorb: () => undefined,
      poke: () => pokes.push(f.clock.now()),
      leaseChanged: (_role, shown, reason) => {
        if (shown === 'candidate') lost.push(reason);
      },
      published: () => undefined,
      dethroned: () => undefined,
      preempt: () => undefined,
      stopped: () => false,
    },
    claim,
    raw,
    inherited: options.inherited ?? [],
  });
  return { f, role, lost, pokes };
}

async function stored(f: WindowFixture, nonce = 0) {
  const raw = await f.kv.get(f.keys.leader().at(nonce));
  const parsed = raw === null ? undefined : parseBroadcast(raw);
  return parsed?.ok ? parsed.broadcast : undefined;
}

describe('LeaderRole: what a node holds while it leads', () => {
  it('publishes the next Version with its member list by compare-and-set (a changed list jumps to the next list epoch), and renews the lease from the cycle start', async () => {
    const { f, role } = await leader({ inherited: [{ id: 'b', weight: 2 }] });
    role.start(0);
    await f.clock.advance(100);
    const out = await role.publish(await f.read(), 100);
    expect(out.outcome).toBe('published');
    // The claim listed no one: the list changed, so Version moves to the next multiple of 1000.
    expect(await stored(f)).toMatchObject({ id: 'me', era: 1, version: 1000, members: [{ id: 'me', weight: 1 }, { id: 'b', weight: 2 }] });
    expect(role.holdsLease(100 + R - 1)).toBe(true);
    expect(role.holdsLease(100 + R)).toBe(false);
    await role.end('stopped');
  });

  it('halfway to the next cycle it beats: the same list at the next Version, by compare-and-set, and the lease is not renewed by it', async () => {
    const { f, role } = await leader({ inherited: [{ id: 'b', weight: 1 }] });
    role.start(0);
    await f.clock.advance(100);
    await role.publish(await f.read(), 100);
    const published = await stored(f);
    await f.clock.advance(49);
    expect(await stored(f)).toEqual(published);
    await f.clock.advance(1);
    expect(await stored(f)).toEqual({ ...published, version: published!.version + 1 });
    expect(role.broadcast.version).toBe(published!.version + 1);
    expect(role.holdsLease(100 + R - 1)).toBe(true);
    expect(role.holdsLease(100 + R)).toBe(false);
    await role.end('stopped');
  });

  it("its publications and beats go before the other operations waiting for its client's one connection (urgent): on a client busier than its pool, Version still moves at every beat", async () => {
    let faults: FaultInjector | undefined;
    let busy: KV | undefined;
    const { f, role } = await leader({
      kv: (kv, fixture) => {
        faults = new FaultInjector({ clock: fixture.clock, seed: 1, logCapacity: 10_000 });
        busy = faults.view(kv, 'me');
        return busy;
      },
    });
    // One connection, each operation holding it 7 ms, and the members sharing the client asking
    // for one every millisecond, each giving up after 40 ms: the newest waiter goes first, so an
    // operation that is not urgent waits until it gives up.
    faults!.connections({ node: 'me', size: 1, serviceMs: 7 });
    let flooding = true;
    let others = 0;
    let othersFailed = 0;
    const flood = (): void => {
      if (!flooding) return;
      others++;
      withDeadline(f.clock, 40, 'other', (signal) => busy!.get('other', { signal })).catch(() => othersFailed++);
      f.clock.setTimer(flood, 1);
    };
    flood();
    role.start(0);
    const versions: number[] = [];
    for (let cycle = 1; cycle <= 10; cycle++) {
      await f.clock.advance(100 * cycle - f.clock.now());
      // The publication waits for the connection too: the clock runs while it does.
      const publication = role.publish(await f.read(), f.clock.now());
      await f.clock.advance(25);
      // Settled by now (served within a connection's 7 ms): a publication still waiting fails here, not at the test's timeout.
      expect((await Promise.race([publication, Promise.resolve(undefined)]))?.outcome).toBe('published');
      const published = (await stored(f))!.version;
      await f.clock.advance(50);
      versions.push((await stored(f))!.version - published);
      expect(role.holdsLease(f.clock.now())).toBe(true);
    }
    flooding = false;
    // The situation of the test: most of the others' operations waited until they gave up.
    expect(othersFailed).toBeGreaterThan(others / 2);
    // Every cycle's beat landed: the Version published, and one more.
    expect(versions).toEqual(Array(10).fill(1));
    const ended = role.end('stopped');
    await f.clock.advance(100);
    await ended;
  });

  it('a beat never overwrites another write: a claim written since the last publication stays, and the leader is asked for a cycle at once', async () => {
    const { f, role, pokes } = await leader();
    role.start(0);
    await f.clock.advance(100);
    await role.publish(await f.read(), 100);
    const claim = await f.put(broadcast('rival', 2, 0, 0));
    await f.clock.advance(50);
    expect(await f.kv.get(f.keys.leader().at(0))).toBe(claim);
    expect(pokes).toEqual([150]);
    await role.end('dethroned');
  });

  it('no beat starts while a cycle holds beats off', async () => {
    const { f, role } = await leader();
    role.start(0);
    await f.clock.advance(100);
    await role.publish(await f.read(), 100);
    const published = await stored(f);
    const release = await role.hold();
    await f.clock.advance(100);
    expect(await stored(f)).toEqual(published);
    release();
    await role.end('stopped');
  });

  it('never overwrites a value written since its read: the publication is a conflict and the store keeps the claim', async () => {
    const { f, role } = await leader();
    role.start(0);
    const read = await f.read();
    const claim = await f.put(broadcast('rival', 2, 0, 0));
    expect(await role.publish(read, 0)).toEqual({ outcome: 'conflict' });
    expect(await f.kv.get(f.keys.leader().at(0))).toBe(claim);
    await role.end('dethroned');
  });

  it('after a publication whose reply was lost, the next list goes to a list epoch above it, even where the read cannot show it landed (lost-publication-epoch)', async () => {
    let loseReply = false;
    const { f, role } = await leader({
      kv: (kv) =>
        new Proxy(kv, {
          get(target, prop, receiver) {
            if (prop !== 'compareAndSet') {
              const value = Reflect.get(target, prop, receiver) as unknown;
              return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
            }
            return async (...args: Parameters<KV['compareAndSet']>) => {
              const result = await target.compareAndSet(...args);
              if (!loseReply) return result;
              loseReply = false;
              throw new Error('the reply was lost');
            };
          },
        }),
    });
    role.start(0);
    await f.clock.advance(100);
    expect((await role.publish(await f.read(), 100)).outcome).toBe('published');
    // b joins; the publication of the new list lands, but its reply is lost.
    await f.kv.append(f.keys.join().at(0), ' b');
    await f.clock.advance(100);
    loseReply = true;
    expect((await role.publish(await f.read(), 200)).outcome).toBe('failed');
    const landed = (await stored(f, 0))!;
    expect(landed.members.map((m) => m.id)).toEqual(['me', 'b']);
    // Then the leader's nonce becomes unavailable to it: it publishes at the next one, from a read
    // that cannot show what landed, after another list change (c joins).
    await f.kv.append(f.keys.join().at(0), ' c');
    await f.clock.advance(100);
    const read = await f.read();
    const blind = { ...read, slots: read.slots.map((s) => (s.nonce === 0 ? { nonce: 0, state: 'unavailable' as const, error: new KeyUnavailableError(f.keys.leader().at(0)) } : s)) };
    expect((await role.publish(blind, 300)).outcome).toBe('published');
    const next = (await stored(f, 1))!;
    // Two lists never share a list epoch: followers that fetched the lost one would never read this one.
    expect(next.members.map((m) => m.id)).toEqual(['me', 'b', 'c']);
    expect(Math.floor(next.version / 1000)).toBeGreaterThan(Math.floor(landed.version / 1000));
    await role.end('stopped');
  });

  it('re-validating a lapsed lease never overwrites a claim written since its read either', async () => {
    const { f, role, lost } = await leader();
    role.start(0);
    await f.clock.advance(R + 10);
    expect(lost).toEqual(['lease-expired']);
    const read = await f.read();
    const claim = await f.put(broadcast('rival', 2, 0, 0));
    expect(await role.publish(read, f.clock.now())).toEqual({ outcome: 'conflict' });
    expect(await f.kv.get(f.keys.leader().at(0))).toBe(claim);
    expect(role.holdsLease(f.clock.now())).toBe(false);
    await role.end('dethroned');
  });

  it('a lapsed lease holds again after two publications at most R apart, each on a read that found nobody better', async () => {
    const { f, role } = await leader();
    role.start(0);
    await f.clock.advance(3 * R);
    role.lapse();
    const lapsedSignal = role.signal;
    expect(lapsedSignal.aborted).toBe(true);
    const first = await role.publish(await f.read(), f.clock.now());
    expect(first).toMatchObject({ outcome: 'published', renewed: false });
    expect(role.holdsLease(f.clock.now())).toBe(false);
    const second = await role.publish(await f.read(), f.clock.now());
    expect(second).toMatchObject({ outcome: 'published', renewed: true });
    expect(role.holdsLease(f.clock.now())).toBe(true);
    expect(role.signal.aborted).toBe(false);
    expect(await stored(f)).toMatchObject({ id: 'me', version: 2 });
    await role.end('stopped');
  });

  it('a lapsed leader never re-validates on a read that missed a nonce (a better leadership could hide there), yet keeps publishing', async () => {
    const { f, role } = await leader();
    role.start(0);
    await f.clock.advance(3 * R);
    role.lapse();
    const partialRead = async () => {
      const read = await f.read();
      return { ...read, slots: read.slots.map((slot, i) => (i === 1 ? { nonce: 1, state: 'unavailable' as const, error: new Error('down') } : slot)) };
    };
    expect(await role.publish(await partialRead(), f.clock.now())).toMatchObject({ outcome: 'published', renewed: false });
    expect(await role.publish(await partialRead(), f.clock.now())).toMatchObject({ outcome: 'published', renewed: false });
    expect(role.holdsLease(f.clock.now())).toBe(false);
    expect(await stored(f)).toMatchObject({ version: 2 });
    expect(await role.publish(await f.read(), f.clock.now())).toMatchObject({ outcome: 'published', renewed: true });
    await role.end('stopped');
  });

  it('the lease runs out R after the cycle start of the last publication, and says so once', async () => {
    const { f, role, lost } = await leader();
    role.start(0);
    await f.clock.advance(R - 1);
    expect(role.holdsLease(f.clock.now())).toBe(true);
    expect(lost).toEqual([]);
    await f.clock.advance(1);
    expect(role.holdsLease(f.clock.now())).toBe(false);
    expect(lost).toEqual(['lease-expired']);
    await f.clock.advance(10 * R);
    expect(lost).toEqual(['lease-expired']);
    await role.end('lease-expired');
  });

  it('a lease that runs out while publications fail is the store’s doing: store-unavailable', async () => {
    const { f, role, lost } = await leader();
    role.start(0);
    const unreachable = { ...(await f.read()), reachable: false };
    expect(await role.publish(unreachable, 0)).toEqual({ outcome: 'failed' });
    await f.clock.advance(R);
    expect(lost).toEqual(['store-unavailable']);
    await role.end('store-unavailable');
  });

  it('ending aborts the leadership signal with a LeadershipLostError carrying the reason; ending twice does nothing more', async () => {
    const { role } = await leader();
    role.start(0);
    const signal = role.signal;
    await role.end('dethroned');
    await role.end('stopped');
    expect(signal.aborted).toBe(true);
    expect(LeadershipLostError.is(signal.reason)).toBe(true);
    expect((signal.reason as LeadershipLostError).reason).toBe('dethroned');
    expect(role.holdsLease(0)).toBe(false);
  });

  it('a dethroned leader hands its members to the winner through the join key', async () => {
    const { f, role } = await leader({ inherited: [{ id: 'b', weight: 1 }, { id: 'c', weight: 3 }] });
    role.start(0);
    await role.end('dethroned');
    const joined = await f.kv.get(f.keys.join().at(0));
    const ids = (joined ?? '').split(' ').filter(Boolean).map((t) => parseMember(t)?.id);
    expect(ids.sort()).toEqual(['b', 'c', 'me']);
  });

  it('a stopped leader publishes a goodbye: the next Version with no members', async () => {
    const { f, role } = await leader({ inherited: [{ id: 'b', weight: 1 }] });
    role.start(0);
    await role.end('stopped');
    expect(await stored(f)).toMatchObject({ id: 'me', era: 1, version: 1, members: [] });
  });

  it('a stopped leader whose last publication landed unacknowledged still says goodbye over it', async () => {
    const { f, role } = await leader();
    role.start(0);
    // The store holds a later version of this leadership than the role knows (the reply was lost).
    await f.put({ ...broadcast('me', 1, 0, 7), members: [{ id: 'me', weight: 1 }] });
    await role.end('stopped');
    expect(await stored(f)).toMatchObject({ id: 'me', era: 1, version: 8, members: [] });
  });

  it('a stopped leader never writes its goodbye over another leadership’s claim', async () => {
    const { f, role } = await leader();
    role.start(0);
    const claim = await f.put(broadcast('rival', 2, 0, 0));
    await role.end('stopped');
    expect(await f.kv.get(f.keys.leader().at(0))).toBe(claim);
  });

  it('a publication after leadership ended writes nothing', async () => {
    const { f, role } = await leader();
    role.start(0);
    const read = await f.read();
    await role.end('destroyed');
    const before = await f.kv.get(f.keys.leader().at(0));
    expect((await role.publish(read, 0)).outcome).not.toBe('published');
    expect(await f.kv.get(f.keys.leader().at(0))).toBe(before);
  });
});

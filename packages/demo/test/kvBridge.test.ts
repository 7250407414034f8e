import { describe, expect, it } from 'vitest';
import { KeyUnavailableError, MemoryKV, RosterError, type KV } from '@roster/kv-adapter';
import { BridgeKV, serveKV, type KVReply } from '../src/kvBridge.js';

/** A BridgeKV wired to `store` through JSON, as over the IPC channel. */
function bridged(store: KV): BridgeKV {
  const bridge: BridgeKV = new BridgeKV(store.capabilities, (request) => {
    const wire = JSON.parse(JSON.stringify(request)) as typeof request;
    void serveKV(store, wire).then((reply) => bridge.receive(JSON.parse(JSON.stringify(reply)) as KVReply));
  });
  return bridge;
}

describe('the demo’s KV bridge', () => {
  it('every operation reaches the store and returns its result', async () => {
    const store = new MemoryKV();
    const kv = bridged(store);
    await kv.set('k', 'v');
    expect(await kv.get('k')).toBe('v');
    expect(await kv.append('j', ' a')).toBe(2);
    expect(await kv.append('j', ' b')).toBe(4);
    expect(await kv.take('j')).toBe(' a b');
    expect(await kv.get('j')).toBeNull();
    expect(await kv.compareAndSet('k', 'v', 'w')).toMatchObject({ swapped: true, current: 'w' });
    expect(await kv.compareAndSet('k', 'v', 'x')).toMatchObject({ swapped: false, current: 'w' });
    expect(await kv.delete('k')).toBe(true);
    expect(typeof (await kv.time())).toBe('number');
    expect(await store.get('k')).toBeNull();
  });

  it('errors keep their Roster code, so the node still tells them apart', async () => {
    const store: KV = Object.assign(new MemoryKV(), {
      get: (key: string) => Promise.reject(new KeyUnavailableError(key)),
    });
    const error = await bridged(store).get('leader 0').catch((e: unknown) => e);
    expect(KeyUnavailableError.is(error)).toBe(true);
    expect(RosterError.is(error, 'KV_KEY_UNAVAILABLE')).toBe(true);
    expect((error as { key: string }).key).toBe('leader 0');
  });

  it('an aborted operation rejects at once with the signal’s reason; close fails what is in flight', async () => {
    const kv = new BridgeKV({ compareAndSet: true, time: true }, () => {}); // nobody answers
    const controller = new AbortController();
    const pending = kv.get('k', { signal: controller.signal });
    controller.abort(new Error('too slow'));
    await expect(pending).rejects.toThrow('too slow');
    const inFlight = kv.get('k');
    await kv.close();
    await expect(inFlight).rejects.toSatisfy((e: unknown) => RosterError.is(e, 'KV_CLOSED'));
    await expect(kv.get('k')).rejects.toSatisfy((e: unknown) => RosterError.is(e, 'KV_CLOSED'));
  });
});

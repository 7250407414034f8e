import { describe, expect, it } from 'vitest';
import { createNode } from '@roster/election';
import { MemoryKV } from '@roster/kv-adapter';
import { MemoryLogger, VirtualClock } from '@roster/testing';
import { resignOnSignal } from '../src/node/resignOnSignal.js';
import { fakeIO } from './support/fakeIO.js';

describe('SIGUSR2 on roster node', () => {
  it('makes a leader resign (it stays a member); on a node that does not lead it changes nothing; stops listening when told', async () => {
    const clock = new VirtualClock();
    const node = createNode({ store: new MemoryKV({ clock }), group: 'c', env: 'e', id: 'a', intervalMs: 100, timeoutMs: 500, clock });
    let handler: (() => void) | undefined;
    const io = { ...fakeIO(), onResignSignal: (fn: () => void) => ((handler = fn), () => (handler = undefined)) };
    const log = new MemoryLogger();
    const stop = resignOnSignal(io, node, log);
    const reasons: string[] = [];
    node.on('role', (u) => reasons.push(u.reason));
    handler!();
    expect(log.entries.at(-1)?.message).toBe('asked to resign: this node does not lead');
    void node.start();
    expect(await clock.advanceUntil(() => node.isLeader(), 5000, 10)).toBeDefined();
    handler!();
    expect(log.entries.at(-1)?.message).toBe('resigning leadership');
    expect(reasons.at(-1)).toBe('resigned');
    expect(node.state).toBe('running');
    stop();
    expect(handler).toBeUndefined();
    const stopping = node.stop();
    await clock.advance(1000);
    await stopping;
  });

  it('needs no resign signal from the IO', () => {
    const node = createNode({ store: new MemoryKV(), group: 'c', env: 'e' });
    expect(() => resignOnSignal(fakeIO(), node, new MemoryLogger())()).not.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '@roster/testing';
import { silentLogger } from '../src/logger.js';
import { UpdateStream } from '../src/util/UpdateStream.js';

type Update = { readonly type: 'role'; readonly role: string } | { readonly type: 'members'; readonly ids: readonly string[] };

const role = (r: string): Update => ({ type: 'role', role: r });
const members = (...ids: string[]): Update => ({ type: 'members', ids });

describe('UpdateStream', () => {
  it('delivers every update to every watch function, in order, until it is removed', () => {
    const stream = new UpdateStream<Update>(new MemoryLogger());
    const a: Update[] = [];
    const b: Update[] = [];
    const unwatchA = stream.watch((u) => a.push(u));
    stream.watch((u) => b.push(u));
    stream.emit(role('candidate'));
    unwatchA();
    stream.emit(role('leader'));
    expect(a).toEqual([role('candidate')]);
    expect(b).toEqual([role('candidate'), role('leader')]);
  });

  it('on() delivers the updates of one type only', () => {
    const stream = new UpdateStream<Update>(new MemoryLogger());
    const seen: string[][] = [];
    const off = stream.on('members', (u) => seen.push([...u.ids]));
    stream.emit(role('leader'));
    stream.emit(members('n1', 'n2'));
    off();
    stream.emit(members('n1'));
    expect(seen).toEqual([['n1', 'n2']]);
  });

  it('a watch function that throws is logged and kept, and the others still get the update', () => {
    const logger = new MemoryLogger();
    const stream = new UpdateStream<Update>(logger);
    let calls = 0;
    const later: Update[] = [];
    stream.watch(() => {
      calls++;
      throw new Error('bad watcher');
    });
    stream.watch((u) => later.push(u));
    stream.emit(role('leader'));
    stream.emit(role('follower'));
    expect(calls).toBe(2);
    expect(later).toHaveLength(2);
    const errors = logger.entries.filter((e) => e.level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]!.fields).toMatchObject({ update: 'role' });
  });

  it('without a logger, a watch function that throws is not swallowed: its error is reported as uncaught, and the others still get the update', () => {
    const uncaught: unknown[] = [];
    const stream = new UpdateStream<Update>(silentLogger, (error) => uncaught.push(error));
    const later: Update[] = [];
    stream.watch(() => {
      throw new Error('bad watcher');
    });
    stream.watch((u) => later.push(u));
    stream.emit(role('leader'));
    expect(later).toHaveLength(1);
    expect(uncaught).toEqual([new Error('bad watcher')]);
  });

  it('by default that report is an uncaught exception on the next tick, as Node’s EventTarget does', async () => {
    const thrown = new Error('bad watcher');
    const seen = await new Promise<unknown>((resolve) => {
      const original = process.nextTick;
      process.nextTick = ((fn: () => void) => {
        process.nextTick = original;
        try {
          fn();
        } catch (error) {
          resolve(error);
        }
      }) as typeof process.nextTick;
      const stream = new UpdateStream<Update>(silentLogger);
      stream.watch(() => {
        throw thrown;
      });
      stream.emit(role('leader'));
    });
    expect(seen).toBe(thrown);
  });

  it('a watch function may remove itself while an update is being delivered', () => {
    const stream = new UpdateStream<Update>(new MemoryLogger());
    const seen: string[] = [];
    const off = stream.watch(() => {
      seen.push('once');
      off();
    });
    stream.watch(() => seen.push('always'));
    stream.emit(role('a'));
    stream.emit(role('b'));
    expect(seen).toEqual(['once', 'always', 'always']);
  });

  it('an iterator yields the updates emitted after it was made, buffering what its consumer has not read yet', async () => {
    const stream = new UpdateStream<Update>(new MemoryLogger());
    stream.emit(role('before'));
    const it = stream.iterate();
    stream.emit(role('one'));
    stream.emit(role('two'));
    expect(await it.next()).toEqual({ value: role('one'), done: false });
    expect(await it.next()).toEqual({ value: role('two'), done: false });
    const waiting = it.next();
    stream.emit(role('three'));
    expect(await waiting).toEqual({ value: role('three'), done: false });
  });

  it('close() ends every iterator once its buffered updates are read; an iterator made after close ends at once', async () => {
    const stream = new UpdateStream<Update>(new MemoryLogger());
    const it = stream.iterate();
    const waiting = stream.iterate();
    const pending = waiting.next();
    stream.emit(role('last'));
    stream.close();
    expect(await pending).toEqual({ value: role('last'), done: false });
    expect(await waiting.next()).toEqual({ value: undefined, done: true });
    const seen: Update[] = [];
    for await (const u of it) seen.push(u);
    expect(seen).toEqual([role('last')]);
    expect(await stream.iterate().next()).toEqual({ value: undefined, done: true });
  });

  it('ends (done, no rejection) when the signal aborts, even while waiting; what was not read is dropped and nothing more is buffered', async () => {
    const stream = new UpdateStream<Update>(new MemoryLogger());
    const controller = new AbortController();
    const it = stream.iterate(controller.signal);
    const waiting = it.next();
    controller.abort(new Error('no longer interested'));
    expect(await waiting).toEqual({ value: undefined, done: true });

    const unread = new AbortController();
    const later = stream.iterate(unread.signal);
    stream.emit(role('unread'));
    unread.abort();
    stream.emit(role('after'));
    expect(await later.next()).toEqual({ value: undefined, done: true });

    const seen: Update[] = [];
    for await (const u of stream.iterate(AbortSignal.abort('already'))) seen.push(u);
    expect(seen).toEqual([]);
  });

  it('breaking out of for-await detaches the iterator: later updates are not buffered for it', async () => {
    const logger = new MemoryLogger();
    const stream = new UpdateStream<Update>(logger);
    const it = stream.iterate();
    stream.emit(role('a'));
    stream.emit(role('b'));
    for await (const u of it) {
      expect(u).toEqual(role('a'));
      break;
    }
    stream.emit(role('c'));
    expect(await it.next()).toEqual({ value: undefined, done: true });
    // The stream still serves other consumers.
    const seen: Update[] = [];
    stream.watch((u) => seen.push(u));
    stream.emit(role('d'));
    expect(seen).toEqual([role('d')]);
  });
});

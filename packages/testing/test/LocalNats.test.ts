import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@roster/kv-adapter';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalNats } from '../src/index.js';

/** The first line a NATS server sends on `port` (its `INFO {…}`), or the error. */
function firstLine(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('no INFO within 2 s')));
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (text.includes('\r\n')) {
        socket.destroy();
        resolve(text.split('\r\n')[0]!);
      }
    });
    socket.on('error', reject);
  });
}

describe('LocalNats', () => {
  let parentDir: string;
  beforeAll(async () => {
    parentDir = await mkdtemp(join(tmpdir(), 'roster-localnats-test-'));
  });
  afterAll(async () => {
    await rm(parentDir, { recursive: true, force: true });
  });

  it('starts nats-server with JetStream and the payload limit, restarts it on its port, and removes its directory on stop', async () => {
    const nats = await LocalNats.start({ parentDir, auth: { token: 't0ken' } });
    try {
      expect(nats.url('b')).toBe(`nats://t0ken@127.0.0.1:${nats.port}/b`);
      expect(nats.url('b', false)).toBe(`nats://127.0.0.1:${nats.port}/b`);
      const info = JSON.parse((await firstLine(nats.port)).replace(/^INFO /, '')) as { jetstream?: boolean; max_payload?: number; auth_required?: boolean };
      expect(info).toMatchObject({ jetstream: true, max_payload: 2 * 1024 * 1024, auth_required: true });
      await nats.kill();
      await expect(firstLine(nats.port)).rejects.toThrow();
      await nats.restart();
      expect(await firstLine(nats.port)).toMatch(/^INFO /);
    } finally {
      await nats.stop();
    }
    expect(await readdir(parentDir)).toEqual([]);
  });

  it('bad options are a ConfigError; a binary that cannot run rejects and leaves nothing behind', async () => {
    await expect(LocalNats.start({ maxPayloadBytes: 10 })).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalNats.start({ binary: '' })).rejects.toBeInstanceOf(ConfigError);
    await expect(LocalNats.start({ parentDir, binary: join(parentDir, 'no-such-nats-server') })).rejects.toThrow(/cannot run/);
    expect(await readdir(parentDir)).toEqual([]);
  });
});

import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { AbstractConnector, SentinelConnector } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { reportingConnector, SafeConnector, SafeSentinelConnector } from '../src/redis/SafeConnector.js';

let server: Server | undefined;
afterEach(async () => {
  server?.close();
  server = undefined;
});

async function listening(): Promise<number> {
  server = createServer((socket: Socket) => socket.on('error', () => {}));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as { port: number }).port;
}

describe('SafeConnector: ioredis connectors on the package root only', () => {
  it("is built on what ioredis' package root exports (no import of ioredis/built/…)", () => {
    expect(Object.getPrototypeOf(SafeConnector)).toBe(AbstractConnector);
    expect(Object.getPrototypeOf(SafeSentinelConnector)).toBe(SentinelConnector);
  });

  it("finds ioredis' private connectToSentinel, through which it guards the sentinel clients", () => {
    expect(typeof (SentinelConnector.prototype as unknown as { connectToSentinel?: unknown }).connectToSentinel).toBe('function');
  });

  it('connects to host:port, and its socket survives a second error (ioredis listens once)', async () => {
    const port = await listening();
    const heard: string[] = [];
    const Connector = reportingConnector((error, node) => heard.push(`${node} ${error.message}`));
    const connector = new Connector({ host: '127.0.0.1', port, disconnectTimeout: 100 });
    const stream = await connector.connect();
    await once(stream, 'connect');
    stream.emit('error', new Error('first'));
    expect(() => stream.emit('error', new Error('second'))).not.toThrow();
    expect(connector.firstError?.message).toBe('first');
    expect(heard).toEqual([`127.0.0.1:${port} first`, `127.0.0.1:${port} second`]);
    connector.disconnect();
    await once(stream, 'close');
  });

  it('rejects as ioredis does when disconnected before the socket is made', async () => {
    const connector = new SafeConnector({ host: '127.0.0.1', port: 1 });
    const connecting = connector.connect();
    connector.disconnect();
    await expect(connecting).rejects.toThrow('Connection is closed.');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { FaultProxy, ROUTE_HEADER } from '../../src/nemesis/FaultProxy.js';

/** An echo server that also records what it received. */
let server: Server;
let received = '';
let link: FaultProxy;
const sockets: Socket[] = [];

beforeEach(async () => {
  received = '';
  server = createServer((s) => {
    sockets.push(s);
    s.on('data', (chunk) => {
      received += chunk.toString();
      s.write(chunk);
    });
    s.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  link = await FaultProxy.listen();
});
afterEach(async () => {
  await link.close();
  for (const s of sockets.splice(0)) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A client routed through the link, as the netRoute hook routes a node's connections. */
function client(): { socket: Socket; got: () => string; closed: Promise<string> } {
  const address = server.address() as { port: number };
  const socket = connect(link.port, '127.0.0.1');
  socket.write(`${ROUTE_HEADER} 127.0.0.1:${address.port}\n`);
  let got = '';
  socket.on('data', (chunk) => (got += chunk.toString()));
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.on('close', () => resolve('closed'));
  });
  return { socket, got: () => got, closed };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !check(); i++) await sleep(10);
  expect(check()).toBe(true);
};

describe('a node’s link (FaultProxy)', () => {
  it('open: forwards both ways to the destination the header names, and counts connections', async () => {
    const c = client();
    c.socket.write('ping');
    await until(() => c.got() === 'ping');
    expect(received).toBe('ping');
    expect(link.accepted).toBe(1);
    expect(link.open).toBe(1);
  });

  it('silent: nothing passes and nothing is refused; what was sent arrives once the link opens', async () => {
    const c = client();
    c.socket.write('a');
    await until(() => c.got() === 'a');
    link.setMode('silent');
    c.socket.write('b');
    await sleep(100);
    expect(received).toBe('a');
    expect(c.got()).toBe('a');
    link.setMode('open');
    await until(() => c.got() === 'ab');
    expect(received).toBe('ab');
  });

  it('reset: every connection is reset, and every new one as it is made', async () => {
    const c = client();
    c.socket.write('a');
    await until(() => c.got() === 'a');
    link.setMode('reset');
    expect(await c.closed).toBe('ECONNRESET');
    expect(await client().closed).toBe('ECONNRESET');
    link.setMode('open');
    const again = client();
    again.socket.write('c');
    await until(() => again.got() === 'c');
  });

  it('drop-replies: what the node sends arrives, the replies are lost, and the broken connection is reset when the link opens', async () => {
    const c = client();
    c.socket.write('a');
    await until(() => c.got() === 'a');
    link.setMode('drop-replies');
    c.socket.write('b');
    await until(() => received === 'ab');
    await sleep(50);
    expect(c.got()).toBe('a');
    link.setMode('open');
    expect(await c.closed).toBe('ECONNRESET');
  });

  it('latency: each chunk is delayed, in order', async () => {
    link.setLatency(80);
    const c = client();
    const started = performance.now();
    c.socket.write('x');
    await until(() => c.got() === 'x');
    // Both ways: at least 2 × 80 ms (with a little slack for timer granularity).
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
  });

  it('flap: the link goes silent and open in turn, so bytes get through late but in order', async () => {
    const c = client();
    c.socket.write('a');
    await until(() => c.got() === 'a');
    link.flap(100);
    for (const ch of 'bcdef') {
      c.socket.write(ch);
      await sleep(30);
    }
    await until(() => c.got() === 'abcdef');
    link.setMode('open');
    expect(link.mode).toBe('open');
  });

  it('counts, by destination, the connections its faults reached: open when it left `open`, or made while not open; latency is no cut', async () => {
    const destination = `127.0.0.1:${(server.address() as { port: number }).port}`;
    const c = client();
    c.socket.write('a');
    await until(() => c.got() === 'a');
    link.setLatency(20);
    expect(link.cuts.size).toBe(0);
    link.setLatency(0);
    link.setMode('silent');
    expect(link.cuts.get(destination)).toBe(1);
    // A connection made while the link is silent is reached once it names its destination.
    client();
    await until(() => link.cuts.get(destination) === 2);
    link.setMode('open');
    link.setMode('reset');
    // Both connections were open when it left `open` again, and were reset.
    expect(link.cuts.get(destination)).toBe(4);
    expect(await c.closed).toBe('ECONNRESET');
    expect([...link.cuts.keys()]).toEqual([destination]);
  });

  it('a link that carried no connection counts no cut, whatever its faults', async () => {
    link.setMode('silent');
    link.setMode('reset');
    link.flap(20);
    await sleep(50);
    link.setMode('open');
    expect(link.cuts.size).toBe(0);
  });
});

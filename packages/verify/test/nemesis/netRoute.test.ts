import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../src/nemesis/FaultProxy.js';
import { GATEWAY_ENV } from '../../src/nemesis/netRoute.js';

/** The hook as `roster verify` loads it into a node's process (built: it runs under plain Node.js). */
const HOOK = new URL('../../dist/nemesis/netRoute.js', import.meta.url).href;

/**
 * A driver that connects as the NATS client's transport does: it listens for `error` and `close`
 * while dialling, removes every listener in its `connect` callback, and listens again a microtask
 * later (to read the server's INFO). It dials `count` times and prints how many connections raised
 * `error` to the listeners added after `connect`, then `done`.
 */
const DRIVER = `
import net from 'node:net';
const [port, count] = process.argv.slice(1).map(Number);
let afterConnect = 0;
// A busy event loop, as a node's under load: a reset often arrives before the connect callback runs.
const busy = setInterval(() => { const t = Date.now(); while (Date.now() - t < 2); }, 1);
const dial = () =>
  new Promise((resolve) => {
    const socket = net.createConnection(port, '127.0.0.1', () => {
      socket.removeAllListeners();
      queueMicrotask(() => {
        socket.on('error', () => afterConnect++);
        socket.on('close', resolve);
        if (socket.destroyed) resolve();
      });
    });
    socket.on('error', () => undefined);
    socket.on('close', resolve);
  });
for (let i = 0; i < count; i += 20) await Promise.all(Array.from({ length: 20 }, dial));
clearInterval(busy);
console.log(afterConnect, 'done');
`;

let link: FaultProxy;
beforeEach(async () => {
  link = await FaultProxy.listen();
});
afterEach(async () => {
  await link.close();
});

/** Runs the driver under the hook, through `link`; resolves with its exit code and output. */
function drive(count: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', HOOK, '--input-type=module', '-e', DRIVER, '4222', String(count)], {
    env: { ...process.env, [GATEWAY_ENV]: String(link.port) },
    cwd: fileURLToPath(new URL('.', import.meta.url)),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the netRoute hook', () => {
  it('a link that resets each connection as it is made does not crash a driver that has no error listener in the turn it connects (roster verify: `Error: write ECONNRESET` on NATS)', async () => {
    link.setMode('reset');
    const { code, stdout, stderr } = await drive(8000);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    // The situation: the route header's write failed in the turn of `connect`, and the driver
    // learned of it from the listeners it added after, as from a read on a network.
    const [afterConnect, done] = stdout.trim().split(' ');
    expect(done).toBe('done');
    expect(Number(afterConnect)).toBeGreaterThan(0);
  }, 60_000);
});

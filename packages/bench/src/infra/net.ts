import { createServer } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

/** The loopback address every server of the bench binds to. */
export const HOST = '127.0.0.1';

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/**
 * A free loopback port, never the same twice in one process. With `alsoFree`, the ports at those
 * offsets must be free too (Redis Cluster's bus port is `port + 10000`).
 */
export async function freePort(alsoFree: readonly number[] = []): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if (taken.has(port) || alsoFree.some((offset) => taken.has(port + offset))) continue;
    if (!(await portIsFree(port))) continue;
    let ok = true;
    for (const offset of alsoFree) ok &&= await portIsFree(port + offset);
    if (!ok) continue;
    taken.add(port);
    for (const offset of alsoFree) taken.add(port + offset);
    return port;
  }
  throw new Error('bench: no free loopback port found');
}

/** Polls `check` every `everyMs` until it is true; throws `what` after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string, everyMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try {
      ok = await check();
    } catch {
      ok = false;
    }
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`bench: timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(everyMs);
  }
}

import { createServer } from 'node:net';

/** The loopback address every local server binds to: `127.0.0.1`. */
export const LOOPBACK_HOST = '127.0.0.1';

/** True when `port` can be bound on {@link LOOPBACK_HOST} right now. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, LOOPBACK_HOST, () => server.close(() => resolve(true)));
  });
}

/** Ports handed out in this process (with their `alsoFree` companions): never handed out again. */
const taken = new Set<number>();

/** Options of {@link freeLoopbackPort}. */
export interface FreeLoopbackPortOptions {
  /**
   * Offsets whose ports must be free too, e.g. `[10_000]` for a Redis Cluster node, whose bus
   * port is `port + 10000`. They are reserved along with the port.
   * @defaultValue `[]`
   */
  readonly alsoFree?: readonly number[];
}

/**
 * A port in 20000–54999 that can be bound on the loopback address now (and, with `alsoFree`, so
 * can `port + offset` for each offset). Never the same port twice in one process, so servers
 * started concurrently do not race for one port. Another process may still take it before it is
 * bound: start the server soon after.
 *
 * @throws Error when no such port is found in 500 random draws.
 *
 * @example
 * ```ts
 * const port = await freeLoopbackPort({ alsoFree: [10_000] }); // p and p + 10000 are free
 * ```
 */
export async function freeLoopbackPort(options: FreeLoopbackPortOptions = {}): Promise<number> {
  const offsets = options.alsoFree ?? [];
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    const all = [port, ...offsets.map((offset) => port + offset)];
    if (all.some((p) => taken.has(p))) continue;
    let free = true;
    for (const p of all) free &&= await portIsFree(p);
    if (!free) continue;
    for (const p of all) taken.add(p);
    return port;
  }
  throw new Error(`no free loopback port${offsets.length ? ` with ${offsets.map((o) => `port + ${o}`).join(', ')} free too` : ''} found in 500 draws`);
}

/**
 * A TCP proxy in front of a server that can hold what its clients send: `hold()` keeps every byte
 * from the clients instead of forwarding it, `release()` forwards what was kept, in order, and
 * passes again. Replies always flow. It stands in for a network that delays one process's writes.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export class HoldingProxy {
  readonly url: string;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #held: { upstream: Socket; chunk: Buffer }[] | undefined;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.url = `redis://127.0.0.1:${port}`;
  }

  /** Starts a proxy on a free loopback port, forwarding to `host:port`. */
  static async start(target: { host: string; port: number }): Promise<HoldingProxy> {
    let proxy: HoldingProxy | undefined;
    const server = createServer((client) => proxy!.#accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    proxy = new HoldingProxy(server, (server.address() as { port: number }).port);
    return proxy;
  }

  /** From now on, keeps what the clients send. */
  hold(): void {
    this.#held ??= [];
  }

  /** Everything kept since {@link hold}, as text. */
  heldText(): string {
    return Buffer.concat((this.#held ?? []).map((h) => h.chunk)).toString('latin1');
  }

  /** Forwards what was kept, in order, and passes everything again. */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const { upstream, chunk } of held) upstream.write(chunk);
  }

  /** Closes every connection and the listening socket. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('error', () => {});
      socket.once('close', () => {
        this.#sockets.delete(socket);
        (socket === client ? upstream : client).destroy();
      });
    }
    client.on('data', (chunk: Buffer) => {
      if (this.#held) this.#held.push({ upstream, chunk });
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
  }
}

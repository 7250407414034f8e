import { SentinelConnector, StandaloneConnector } from 'ioredis/built/connectors/index.js';

type Options = ConstructorParameters<typeof StandaloneConnector>[0];

type Stream = Awaited<ReturnType<StandaloneConnector['connect']>>;

/** Hears every error of every socket a connector opens, with the node as `host:port`. */
export type SocketErrorListener = (error: Error, node: string) => void;

/**
 * ioredis' own connector, with one change: the socket it returns keeps an `error` listener for
 * its whole life. ioredis listens with `once('error')`, so a TLS socket that fails twice (the
 * server's alert refusing a client certificate, then `ECONNRESET`) would emit its second error to
 * nobody and crash the process; ioredis still sees the first error and the `close` that follows.
 */
export class SafeConnector extends StandaloneConnector {
  /** Where this connector's socket errors go besides ioredis (nowhere by default). */
  protected readonly onSocketError: SocketErrorListener | undefined = undefined;
  readonly #node: string;

  constructor(options: unknown) {
    super(options as Options);
    const o = options as { host?: string; port?: number; path?: string };
    this.#node = o.path ?? `${o.host ?? 'localhost'}:${o.port ?? 6379}`;
  }

  override async connect(...args: Parameters<StandaloneConnector['connect']>): Promise<Stream> {
    const stream = await super.connect(...args);
    stream.on('error', (error: Error) => this.onSocketError?.(error, this.#node));
    return stream;
  }
}

/**
 * A {@link SafeConnector} class whose sockets also report their errors to `listener`. A Redis
 * Cluster client needs it: ioredis refreshes the slot table over a duplicate connection whose
 * errors it ignores, so a seed whose TLS certificate fails verification shows only as
 * "Connection is closed." and the client retries until the connect timeout.
 */
export function reportingConnector(listener: SocketErrorListener): typeof SafeConnector {
  return class ReportingConnector extends SafeConnector {
    protected override readonly onSocketError = listener;
  };
}

type SentinelOptions = ConstructorParameters<typeof SentinelConnector>[0];

/**
 * ioredis' Sentinel connector (ask the sentinels for the master, connect to it, watch
 * `+switch-master`) with {@link SafeConnector}'s one change: the master's socket keeps an `error`
 * listener for its whole life.
 */
export class SafeSentinelConnector extends SentinelConnector {
  constructor(options: unknown) {
    super(options as SentinelOptions);
  }

  override async connect(...args: Parameters<SentinelConnector['connect']>): Promise<Stream> {
    const stream = await super.connect(...args);
    stream.on('error', () => {});
    return stream;
  }
}

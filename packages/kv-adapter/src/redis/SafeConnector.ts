import { createConnection, type TcpNetConnectOpts } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { AbstractConnector, SentinelConnector, type SentinelConnectionOptions, type StandaloneConnectionOptions } from 'ioredis';

type Stream = Awaited<ReturnType<AbstractConnector['connect']>>;

/** What ioredis rejects a connect with when the connector was disconnected first (its own text). */
const CONNECTION_CLOSED = 'Connection is closed.';

/** Hears every error of every socket a connector opens, with the node as `host:port`. */
export type SocketErrorListener = (error: Error, node: string) => void;

/**
 * ioredis' standalone connector, written on what the package root exports (`AbstractConnector`,
 * the `Connector` option): ioredis does not export its `StandaloneConnector`, and importing it
 * from `ioredis/built/connectors` would tie this package to a file layout a minor release may
 * change. It opens the socket as ioredis' own does (a path, or host, port and family; TLS options
 * merged in), with one change: the socket keeps an `error` listener for its whole life. ioredis
 * listens with `once('error')`, so a TLS socket that fails twice (the server's alert refusing a
 * client certificate, then `ECONNRESET`) would emit its second error to nobody and crash the
 * process; ioredis still sees the first error and the `close` that follows.
 */
export class SafeConnector extends AbstractConnector {
  /** Where this connector's socket errors go besides ioredis (nowhere by default). */
  protected readonly onSocketError: SocketErrorListener | undefined = undefined;
  readonly #options: StandaloneConnectionOptions;
  readonly #node: string;

  constructor(options: unknown) {
    const o = options as StandaloneConnectionOptions;
    super(o.disconnectTimeout ?? 2000);
    this.#options = o;
    this.#node = o.path ?? `${o.host ?? 'localhost'}:${o.port ?? 6379}`;
  }

  override connect(): Promise<Stream> {
    const o = this.#options;
    this.connecting = true;
    const target: Partial<TcpNetConnectOpts> & { path?: string } =
      o.path !== undefined && o.path !== ''
        ? { path: o.path }
        : { ...(o.port != null && { port: o.port }), ...(o.host != null && { host: o.host }), ...(o.family != null && { family: o.family }) };
    // As ioredis does: the socket is made on the next tick, when a disconnect() in between wins.
    return new Promise((resolve, reject) => {
      process.nextTick(() => {
        if (!this.connecting) return reject(new Error(CONNECTION_CLOSED));
        let stream: Stream;
        try {
          stream = o.tls ? tlsConnect({ ...(target as ConnectionOptions), ...o.tls }) : createConnection(target as TcpNetConnectOpts);
        } catch (error) {
          return reject(error);
        }
        this.stream = stream;
        stream.once('error', (error: Error) => {
          this.firstError = error;
        });
        stream.on('error', (error: Error) => this.onSocketError?.(error, this.#node));
        resolve(stream);
      });
    });
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

/**
 * ioredis' Sentinel connector (ask the sentinels for the master, connect to it, watch
 * `+switch-master`; exported by the package root) with {@link SafeConnector}'s one change: the
 * master's socket keeps an `error` listener for its whole life.
 */
export class SafeSentinelConnector extends SentinelConnector {
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
  }

  override async connect(...args: Parameters<SentinelConnector['connect']>): Promise<Stream> {
    const stream = await super.connect(...args);
    stream.on('error', () => {});
    return stream;
  }
}

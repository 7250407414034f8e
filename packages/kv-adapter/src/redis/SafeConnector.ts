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
 * master's socket keeps an `error` listener for its whole life, and so do the sockets of the
 * clients it opens to the sentinels (a TLS sentinel whose certificate fails verification fails
 * twice, and its second error crashed `roster node`: test/stores-sentinel-tls.test.ts). The
 * failover detector's clients also get no command timeout, an `error` listener and handled
 * subscription promises (see `guardSubscriber`: a reset sentinel link crashed `roster node`).
 */
export class SafeSentinelConnector extends SentinelConnector {
  /** The first refusal by a sentinel (a certificate, its credentials) in this round of asking them all. */
  #refusal: Error | undefined;

  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
    // ioredis makes every sentinel client in its private `connectToSentinel(endpoint, options)`,
    // whose `options` override its own: the connector is given there. Should a release rename the
    // method, the connector works as ioredis' own (the sentinels' sockets unprotected, the failover
    // detector's re-subscriptions unhandled); test/SafeConnector.test.ts pins the method.
    const self = this as unknown as { connectToSentinel?: (endpoint: unknown, options?: object) => unknown };
    const connectToSentinel = self.connectToSentinel;
    const Connector = reportingConnector((error) => {
      if (this.#refusal === undefined && isCertificateRefusal(error)) this.#refusal = error;
    });
    if (typeof connectToSentinel === 'function') {
      self.connectToSentinel = (endpoint, options) => {
        // The failover detector's clients are the ones given options (`lazyConnect` and their own
        // reconnect strategy); the short-lived ones that ask for the master are given none.
        // Every sentinel client is guarded, should a release give the detector's no options.
        const watcher = options !== undefined;
        const client = connectToSentinel.call(this, endpoint, { Connector, ...options, ...(watcher && { commandTimeout: undefined }) });
        guardSubscriber(client);
        return client;
      };
    }
  }

  /**
   * ioredis reports a round in which no sentinel named the master as `All sentinels are
   * unreachable. … Last error: <text>`; a sentinel's TLS refusal shows there only as `Connection is
   * closed.`, and only the last sentinel's error is named. The first refusal of the round (a
   * certificate refused, or `NOAUTH`/`WRONGPASS`/`NOPERM` from a sentinel, which ioredis reports
   * per sentinel as `sentinelError`) becomes that error's `cause`, so that it is final
   * (`accessDenied`) rather than retried until the connect timeout. Only certificate refusals
   * among TLS failures: a handshake cut short on a loaded machine ends in other TLS alerts
   * (`decode error`), which must stay retried.
   */
  override async connect(...[emit]: Parameters<SentinelConnector['connect']>): Promise<Stream> {
    this.#refusal = undefined;
    const stream = await super.connect((type, error) => {
      // One sentinel's failure: `failed to connect to sentinel HOST:PORT because <its error>`.
      const denied = type === 'sentinelError' ? /^failed to connect to sentinel (\S+) because ((?:NOAUTH|WRONGPASS|NOPERM)\b.*)$/s.exec(error.message) : null;
      if (denied !== null && this.#refusal === undefined) this.#refusal = Object.assign(new Error(`${denied[2]} (sentinel ${denied[1]})`), { name: 'ReplyError' });
      if (error.message.startsWith('All sentinels are unreachable')) {
        if (this.#refusal !== undefined && error.cause === undefined) Object.defineProperty(error, 'cause', { value: this.#refusal, configurable: true, writable: true });
        this.#refusal = undefined;
      }
      emit(type, error);
    });
    stream.on('error', () => {});
    return stream;
  }
}

/** Marks a sentinel client as guarded, so that it is wrapped once however often it is met. */
const GUARDED = Symbol('roster.guardedSubscriber');

/**
 * Keeps a client of ioredis' failover detector (a `+switch-master` subscription to one sentinel)
 * from leaving an unhandled rejection or a console line behind. ioredis (5.11) makes these clients
 * with the sentinels' command timeout and no `error` listener, and re-subscribes them after every
 * reconnection without handling that promise: a sentinel link reset and still cut (`roster verify`'s
 * `cut-reset`, seed 3) timed the `SUBSCRIBE` out unhandled and the `roster node` process exited,
 * and each socket error was printed as `[ioredis] Unhandled error event`. The caller gives the
 * client no command timeout (a subscription waits for its link; a lost one fails with it and is
 * made again at the next reconnection), and this gives it an `error` listener and marks every
 * `subscribe`/`psubscribe`/`ssubscribe` promise handled, whatever ioredis passes or does with them
 * (ioredis' own `subscribe` still handles its promise). Tested by test/redis-sentinel.test.ts
 * ("a failover detector's sentinel link reset and still cut").
 */
function guardSubscriber(client: unknown): void {
  const holder = client as { [GUARDED]?: true; on?: unknown } & Record<string, unknown>;
  if (holder === null || typeof holder !== 'object' || holder[GUARDED]) return;
  holder[GUARDED] = true;
  if (typeof holder.on === 'function') (holder.on as (event: string, listener: () => void) => void).call(holder, 'error', () => {});
  for (const name of ['subscribe', 'psubscribe', 'ssubscribe']) {
    const method = holder[name];
    if (typeof method !== 'function') continue;
    holder[name] = (...args: unknown[]): unknown => {
      const reply: unknown = method.apply(holder, args);
      if (reply instanceof Promise) reply.catch(() => undefined);
      return reply;
    };
  }
}

/**
 * A TLS failure about a certificate, which no retry fixes: Node's verification codes
 * (`SELF_SIGNED_CERT_IN_CHAIN`, `CERT_HAS_EXPIRED`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`) and the peer's alerts refusing ours (`…_ALERT_CERTIFICATE_REQUIRED`,
 * `…_ALERT_BAD_CERTIFICATE`, `…_ALERT_UNKNOWN_CA`).
 */
function isCertificateRefusal(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /CERT|UNABLE_TO_(GET|VERIFY)|UNKNOWN_CA/.test(code);
}

import { StandaloneConnector } from 'ioredis/built/connectors/index.js';

type Options = ConstructorParameters<typeof StandaloneConnector>[0];

type Stream = Awaited<ReturnType<StandaloneConnector['connect']>>;

/**
 * ioredis' own connector, with one change: the socket it returns keeps an `error` listener for
 * its whole life. ioredis listens with `once('error')`, so a TLS socket that fails twice (the
 * server's alert refusing a client certificate, then `ECONNRESET`) would emit its second error to
 * nobody and crash the process; ioredis still sees the first error and the `close` that follows.
 */
export class SafeConnector extends StandaloneConnector {
  constructor(options: unknown) {
    super(options as Options);
  }

  override async connect(...args: Parameters<StandaloneConnector['connect']>): Promise<Stream> {
    const stream = await super.connect(...args);
    stream.on('error', () => {});
    return stream;
  }
}

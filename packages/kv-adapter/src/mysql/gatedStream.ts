import { connect, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import type { ConnectBackOff } from '../backend/ConnectBackOff.js';

/** What mysql2 passes to a `stream` factory: the new connection's configuration. */
interface StreamFactoryOptions {
  readonly config: {
    readonly host?: string;
    readonly port?: number;
    readonly enableKeepAlive?: boolean;
    readonly keepAliveInitialDelay?: number;
  };
}

/**
 * mysql2's `stream` option (a factory of each new connection's socket) whose connections open
 * only when `backOff` allows: while the server does not answer, a connection that may not open yet
 * fails at once (the operation that wanted it fails as the store unavailable) instead of reaching
 * the server. Every connection mysql2's pool opens, for an operation or for one still waiting in
 * its queue, goes through here. The socket is the one mysql2 would open itself (TCP, no delay,
 * keep-alive); TLS, when configured, is negotiated on it by mysql2 as usual.
 *
 * Failures are reported to `backOff` by `MySQLKV` (an operation that failed as unavailable,
 * a connection that did not open); a connection that opens is not an answer (on a slow network a
 * connection may open and every statement on it still time out).
 */
export function gatedStream(backOff: ConnectBackOff): (options: StreamFactoryOptions) => Duplex {
  let lastFailure = '';
  return ({ config }) => {
    if (!backOff.tryOpen()) {
      const error = Object.assign(new Error(`no new connection for ${Math.round(backOff.waitMs)} ms: the server did not answer lately${lastFailure && ` (${lastFailure})`}`), {
        code: 'ROSTER_CONNECT_BACKOFF',
      });
      const refused = new Duplex({ read() {}, write: (_chunk, _encoding, callback) => callback() });
      // mysql2 listens for the stream's error once the factory returned: fail on the next tick.
      process.nextTick(() => refused.destroy(error));
      return refused;
    }
    const socket: Socket = connect(config.port ?? 3306, config.host ?? 'localhost');
    socket.setNoDelay(true);
    if (config.enableKeepAlive) socket.once('connect', () => socket.setKeepAlive(true, config.keepAliveInitialDelay));
    // mysql2 listens too; this only remembers why the last connection failed, for the message above.
    socket.on('error', (error) => (lastFailure = error.message));
    return socket;
  };
}

/**
 * The hook that routes a node's process through its {@link FaultProxy}: loaded into the node's
 * Node.js process with `--import` (`NODE_OPTIONS`), before any of its code, it sends every outgoing
 * TCP connection to the gateway port in `ROSTER_VERIFY_GATEWAY`, preceded by one header line that
 * names the real destination. Every driver (ioredis, pg, mysql2 through `MySQLKV`'s gated stream,
 * the NATS client, etcd's gRPC, `fetch`) opens its sockets through `net.Socket.prototype.connect`
 * (`net.connect` and `net.createConnection` call it), so the addresses a client discovers at run
 * time (a Redis Cluster's nodes, the master a Sentinel names) are routed too: the nemesis cuts all
 * of the node's links at once, as a network would. TLS connections and Unix sockets go direct (the
 * header would be encrypted with them): `runVerify` reports such a store as not cut. TLS started on
 * a plain socket once connected (mysql2's `?ssl=`, the NATS client's `tls://`) is routed and cut.
 *
 * Without `ROSTER_VERIFY_GATEWAY` the hook does nothing.
 */
import net from 'node:net';
import tls from 'node:tls';
import { ROUTE_HEADER } from './FaultProxy.js';

/** The environment variable that gives the gateway's port. */
export const GATEWAY_ENV = 'ROSTER_VERIFY_GATEWAY';

type NormalizedArgs = unknown[] & { 0: Record<string, unknown> };
const normalizeArgs = (net as unknown as { _normalizeArgs(args: unknown[]): NormalizedArgs })._normalizeArgs;

const gateway = Number(process.env[GATEWAY_ENV]);
if (Number.isInteger(gateway) && gateway > 0) {
  const original = net.Socket.prototype.connect;
  const patched = function connect(this: net.Socket, ...args: unknown[]): net.Socket {
    const normalized = (Array.isArray(args[0]) ? args[0] : normalizeArgs(args)) as NormalizedArgs;
    const options = normalized[0];
    const port = Number(options.port);
    const host = typeof options.host === 'string' ? options.host : 'localhost';
    const toGateway = port === gateway && (host === '127.0.0.1' || host === 'localhost');
    if (Boolean(options.path) || this instanceof tls.TLSSocket || !Number.isInteger(port) || toGateway) {
      return original.apply(this, args as Parameters<typeof original>);
    }
    const { family: _family, lookup: _lookup, ...rest } = options;
    const routed = normalizeArgs([{ ...rest, host: '127.0.0.1', port: gateway }, ...normalized.slice(1)]);
    const socket = original.call(this, routed as unknown as Parameters<typeof original>[0]);
    // Written while connecting: it leaves first, before anything the driver writes on 'connect'.
    socket.prependOnceListener('connect', () => holdConnectTurn(socket));
    socket.write(`${ROUTE_HEADER} ${host}:${port}\n`);
    return socket;
  };
  net.Socket.prototype.connect = patched as typeof original;
}

/**
 * Holds the `error` and `close` events `socket` raises in the turn it connects, and raises them in
 * the next turn. The header is written in that turn, after the driver's `connect` callback; on a
 * link that resets each connection as it is made, that write fails at once and the socket raises
 * `error` before the driver's next microtask. A driver may have no `error` listener then (the NATS
 * client removes every listener in its `connect` callback and adds its own a microtask later), and
 * the node would crash (`Error: write ECONNRESET`, which `roster verify` saw as a node exiting). On
 * a network the driver learns of a reset by a later read, in a later turn: so it does here.
 */
function holdConnectTurn(socket: net.Socket): void {
  const emit = socket.emit as (this: net.Socket, event: string | symbol, ...args: unknown[]) => boolean;
  const held: [string | symbol, unknown[]][] = [];
  socket.emit = function hold(this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (event !== 'error' && event !== 'close') return emit.call(this, event, ...args);
    held.push([event, args]);
    return true;
  } as typeof socket.emit;
  setImmediate(() => {
    socket.emit = emit as typeof socket.emit;
    for (const [event, args] of held) emit.call(socket, event, ...args);
  });
}

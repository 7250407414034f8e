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
    socket.write(`${ROUTE_HEADER} ${host}:${port}\n`);
    return socket;
  };
  net.Socket.prototype.connect = patched as typeof original;
}

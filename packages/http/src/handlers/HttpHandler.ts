import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A `node:http` request handler, as `createServer()` takes one; Express and Fastify (through
 * `request.raw` and `reply.raw`) can mount it too. It answers the whole request, and the promise
 * it returns resolves once the response is written: it never rejects.
 */
export type HttpHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

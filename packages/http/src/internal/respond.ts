import type { IncomingMessage, ServerResponse } from 'node:http';

/** The methods Roster's handlers answer; anything else is 405. */
export const ALLOWED = 'GET, HEAD';

/** True for GET and HEAD; otherwise answers 405 and returns false. */
export function readOnly(request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  send(response, request, 405, 'text/plain; charset=utf-8', 'method not allowed\n', { allow: ALLOWED });
  return false;
}

/** Writes a whole response, uncached; no body for HEAD. Nothing when the response already ended. */
export function send(response: ServerResponse, request: IncomingMessage, code: number, type: string, body: string, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.writableEnded || response.destroyed) return;
  response.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(request.method === 'HEAD' ? undefined : body);
}

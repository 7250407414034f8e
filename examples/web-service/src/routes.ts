import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { RosterNode } from '@roster/election';
import type { HttpHandler, ObservedRoutes } from '@roster/http';

/** What the service's HTTP server answers besides its own routes. */
export interface ServiceRoutes {
  readonly node: RosterNode;
  /** `/metrics`, `/healthz`, `/readyz`: `@roster/http`'s handlers (`observe()`'s `routes`). */
  readonly roster: ObservedRoutes;
  /** How many digests this process wrote while it led. */
  readonly digests: () => number;
  /** Called when `POST /resign` asks the leader to resign. */
  readonly onResign: () => void;
}

/**
 * The service's request listener: Roster's endpoints mounted beside its own routes, `GET /` (this
 * process's view, as JSON) and `POST /resign` (the leader hands its work over: 200, or 409 when
 * this process does not lead).
 */
export function serviceRoutes(r: ServiceRoutes): RequestListener {
  const mounted: Readonly<Record<string, HttpHandler>> = r.roster;
  return (request, response) => {
    const path = new URL(request.url ?? '/', 'http://service').pathname;
    const roster = mounted[path];
    if (roster) return void roster(request, response);
    if (path === '/' && (request.method === 'GET' || request.method === 'HEAD')) {
      const { node } = r;
      const leader = node.leader;
      return json(request, response, 200, {
        id: node.id,
        role: node.role,
        leader: leader ? { id: leader.id, token: leader.token.toString() } : null,
        members: node.memberIds,
        digests: r.digests(),
      });
    }
    if (path === '/resign' && request.method === 'POST') return void resign(r, request, response);
    if (path === '/' || path === '/resign') return json(request, response, 405, { error: 'method not allowed' });
    json(request, response, 404, { error: `not found: ${path}` });
  };
}

async function resign(r: ServiceRoutes, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (!r.node.isLeader()) return json(request, response, 409, { resigned: false, reason: 'this process does not lead', leader: r.node.leader?.id ?? null });
  r.onResign();
  // Resolves once the leader work has wound down and the goodbye is written; never rejects.
  await r.node.resign();
  json(request, response, 200, { resigned: true, role: r.node.role });
}

function json(request: IncomingMessage, response: ServerResponse, code: number, body: object): void {
  const text = `${JSON.stringify(body)}\n`;
  response.writeHead(code, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  response.end(request.method === 'HEAD' ? undefined : text);
}

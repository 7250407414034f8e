import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeEvent } from '@roster/cli';
import { DASHBOARD_CSS, describeNodeEvent, jsonForScript } from '@roster/cli/internal';
import { verdict } from './ClusterChanges.js';
import type { ClusterView } from './ClusterView.js';
import { elapsed, type DemoDisplay, type DemoInfo } from './DemoDisplay.js';

const LOG_LINES = 200;
const PUSH_MS = 100;

/** What the demo's web page shows: the whole cluster, as `/cluster.json` and every Server-Sent Event. */
export interface DemoSnapshot {
  readonly info: DemoInfo;
  /** `starting` until every node is up, `running`, then `ended` once the nodes are being stopped. */
  readonly phase: 'starting' | 'running' | 'ended';
  /** Seconds left in the run, while running. */
  readonly secondsLeft: number | null;
  /** The alive node that leads, if exactly one does, and the leader-key nonce it broadcasts at. */
  readonly leader: { readonly id: string; readonly era: number; readonly token: string; readonly version: number; readonly nonce: number | null } | null;
  readonly elections: number;
  /** Measured failovers, oldest first; the last may still be under way (`durationMs` null). */
  readonly failovers: readonly { readonly victim: string; readonly durationMs: number | null; readonly newLeader: string | null }[];
  /** Every node started, in start order. */
  readonly nodes: readonly {
    readonly id: string;
    readonly pid: number | null;
    readonly life: string;
    readonly role: string | null;
    readonly follows: string | null;
    readonly version: number;
    /** The leader-key nonce where the node last found (or wrote) the leader's broadcast. */
    readonly nonce: number | null;
    readonly members: readonly string[];
    /** The node's PONG round trip in ms (from its PING to finding the PONG: about I), while it follows. */
    readonly pongRoundTripMs: number | null;
    /** The node's store round trip in ms: a moving average of its store operations. */
    readonly storeRoundTripMs: number | null;
  }[];
  /** The alive nodes that report leader now: one, or none during an election; two would be a fault. */
  readonly leadersNow: readonly string[];
  /** Every time two alive nodes reported leader at once: how many times, and how long in all (ms). */
  readonly twoLeaders: { readonly times: number; readonly ms: number };
  /** `--cluster`: the Redis Cluster's topology changes so far, each with what it did to the leadership. */
  readonly topology: readonly {
    readonly kind: string;
    readonly detail: string;
    /** The leader and era when it started. */
    readonly before: { readonly id: string; readonly era: number };
    /** The leader and era every node followed once it was watched; null: not yet judged, or no agreement. */
    readonly after: { readonly id: string; readonly era: number } | null;
    readonly judged: boolean;
    readonly elections: number | null;
    /** Times two nodes reported leader at once during it. */
    readonly twoLeaders: number | null;
    /** The line the log shows once it is judged. */
    readonly verdict: string | null;
  }[];
  /** The kills, starts, failovers and node events, newest last. */
  readonly log: readonly string[];
}

/**
 * The demo in a browser: one URL where every demo node is visible and the kills and failovers can
 * be watched live. A {@link DemoDisplay} (run it beside the terminal's) that serves a
 * self-contained page at `/`, the cluster as JSON at `/cluster.json`, and the same, pushed at most
 * every 100 ms as Server-Sent Events, at `/events`.
 */
export class DemoWeb implements DemoDisplay {
  /** The page's URL, e.g. `http://127.0.0.1:41234/`. */
  readonly url: string;
  readonly #server: Server;
  readonly #view: ClusterView;
  readonly #info: DemoInfo;
  readonly #now: () => number;
  readonly #clients = new Set<ServerResponse>();
  readonly #log: string[] = [];
  readonly #timer: NodeJS.Timeout;
  #phase: DemoSnapshot['phase'] = 'starting';
  #endsAt: number | undefined;
  #dirty = true;
  #closed = false;
  #lastSecondsLeft: number | null = null;

  private constructor(server: Server, url: string, view: ClusterView, info: DemoInfo, now: () => number) {
    this.#server = server;
    this.url = url;
    this.#view = view;
    this.#info = info;
    this.#now = now;
    this.#timer = setInterval(() => this.#push(), PUSH_MS);
  }

  /** Listens on `host:port` (0: any free port). Rejects with the listen error. */
  static async listen(host: string, port: number, view: ClusterView, info: DemoInfo, now: () => number): Promise<DemoWeb> {
    let web: DemoWeb | undefined;
    const server = createServer((request, response) => web?.respond(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address() as AddressInfo;
    web = new DemoWeb(server, `http://${address.address}:${address.port}/`, view, info, now);
    return web;
  }

  note(at: number, text: string): void {
    this.#line(`${elapsed(at)}  ${text}`);
  }

  event(at: number, event: NodeEvent): void {
    this.#line(`${elapsed(at)}  ${event.id.padEnd(4)} ${describeNodeEvent(event)}`);
  }

  changed(): void {
    this.#dirty = true;
  }

  running(at: number, endsAt: number): void {
    this.#phase = 'running';
    this.#endsAt = endsAt;
    this.note(at, 'every node is up');
  }

  freeze(): void {
    this.#phase = 'ended';
    this.#dirty = true;
    this.#push();
  }

  /** Sends the last frame, ends every stream and stops listening. */
  close(): void {
    if (this.#closed) return;
    this.#phase = 'ended';
    this.#dirty = true;
    this.#push();
    this.#closed = true;
    clearInterval(this.#timer);
    for (const client of this.#clients) client.end('event: end\ndata: {}\n\n');
    this.#clients.clear();
    this.#server.close();
    this.#server.closeAllConnections();
  }

  /** What the page shows now. */
  snapshot(): DemoSnapshot {
    const view = this.#view;
    const leader = view.leaderNode;
    return {
      info: this.#info,
      phase: this.#phase,
      secondsLeft: this.#phase === 'running' && this.#endsAt !== undefined ? Math.max(0, Math.ceil((this.#endsAt - this.#now()) / 1000)) : null,
      leader: leader?.leader ? { id: leader.id, era: leader.leader.era, token: String(leader.leader.token), version: leader.version, nonce: leader.nonce ?? null } : null,
      elections: view.elections,
      failovers: view.failovers.map((f) => ({ victim: f.victim, durationMs: f.durationMs ?? null, newLeader: f.newLeader?.id ?? null })),
      nodes: view.nodes.map((n) => ({
        id: n.id,
        pid: n.pid ?? null,
        life: n.life,
        role: n.role ?? null,
        follows: n.leader?.id ?? null,
        version: n.version,
        nonce: n.nonce ?? null,
        members: n.members,
        pongRoundTripMs: n.role === 'follower' ? (n.pongRoundTripMs ?? null) : null,
        storeRoundTripMs: n.storeRoundTripMs ?? null,
      })),
      leadersNow: view.leaders.map((n) => n.id),
      twoLeaders: { times: view.overlaps.length, ms: view.overlapMs(this.#now()) },
      topology: view.topology.map((c) => ({
        kind: c.kind,
        detail: c.detail,
        before: { id: c.before.id, era: c.before.era },
        after: c.after ? { id: c.after.id, era: c.after.era } : null,
        judged: c.after !== undefined,
        elections: c.elections ?? null,
        twoLeaders: c.overlaps?.length ?? null,
        verdict: c.after === undefined ? null : verdict(c),
      })),
      log: [...this.#log],
    };
  }

  #line(text: string): void {
    this.#log.push(text);
    if (this.#log.length > LOG_LINES) this.#log.shift();
    this.#dirty = true;
  }

  #push(): void {
    if (this.#closed || this.#clients.size === 0) return;
    const snapshot = this.snapshot();
    // The countdown moves every second even when nothing else does.
    if (!this.#dirty && snapshot.secondsLeft === this.#lastSecondsLeft) return;
    this.#dirty = false;
    this.#lastSecondsLeft = snapshot.secondsLeft;
    const text = `event: cluster\ndata: ${JSON.stringify(snapshot)}\n\n`;
    for (const client of this.#clients) client.write(text);
  }

  respond(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', 'http://demo').pathname;
    const headers = { 'cache-control': 'no-store' };
    if (request.method !== 'GET') {
      response.writeHead(405, { ...headers, allow: 'GET' }).end();
    } else if (path === '/events') {
      response.writeHead(200, { ...headers, 'content-type': 'text/event-stream; charset=utf-8' });
      response.flushHeaders();
      response.write(`event: cluster\ndata: ${JSON.stringify(this.snapshot())}\n\n`);
      this.#clients.add(response);
      response.once('close', () => this.#clients.delete(response));
      response.on('error', () => this.#clients.delete(response));
    } else if (path === '/cluster.json') {
      response.writeHead(200, { ...headers, 'content-type': 'application/json; charset=utf-8' }).end(`${JSON.stringify(this.snapshot(), null, 2)}\n`);
    } else if (path === '/') {
      response.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end(renderDemoPage(this.snapshot()));
    } else {
      response.writeHead(404, { ...headers, 'content-type': 'text/plain; charset=utf-8' }).end('not found: try /, /cluster.json or /events\n');
    }
  }
}

/** The demo's page: the first snapshot embedded, then every later one over Server-Sent Events. */
export function renderDemoPage(s: DemoSnapshot): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>roster demo</title>
<style>${DASHBOARD_CSS}
tr.gone td{opacity:.5;text-decoration:line-through}
td.members{font-size:.85em;color:var(--muted)}
</style>
</head><body>
<h1>roster demo <span id="phase" class="badge warn">starting</span> <span id="link" class="badge warn">connecting…</span></h1>
<div class="sub" id="where"></div>
<noscript><p>This page updates itself with JavaScript; without it, see <a href="/cluster.json">/cluster.json</a>.</p></noscript>
<div class="grid" style="margin-top:10px">
<div class="card"><h3>leader</h3><div class="big" id="leader">–</div><div class="sub" id="leader-detail"></div></div>
<div class="card"><h3>failovers</h3><div class="big" id="failovers">0</div><div class="sub" id="failover-detail"></div></div>
<div class="card"><h3>two leaders at once</h3><div class="big" id="two-leaders">never</div><div class="sub">alive nodes reporting leader at the same time</div></div>
</div>
<div id="topology-box" hidden><h2>Redis Cluster changes</h2><ul id="topology"></ul></div>
<h2>nodes</h2>
<div class="scroll"><table><thead><tr><th>node</th><th>pid</th><th>role</th><th>follows</th><th>nonce</th><th title="a moving average of the node's store operations, from call to answer">store round trip</th><th title="from the node's PING to finding the leader's PONG: about the interval I when every PING is answered">PONG round trip</th><th>members as it sees them</th></tr></thead><tbody id="nodes"></tbody></table></div>
<h2>event log</h2>
<pre id="log"></pre>
<footer><a href="/cluster.json">cluster.json</a></footer>
<script type="application/json" id="initial">${jsonForScript(s)}</script>
<script>${DEMO_SCRIPT}</script>
</body></html>
`;
}

const DEMO_SCRIPT = `
"use strict";
const $ = (id) => document.getElementById(id);
const text = (id, value) => { $(id).textContent = value; };
function render(s) {
  const i = s.info;
  text("phase", s.phase === "running" ? s.secondsLeft + " s left" : s.phase);
  $("phase").className = "badge " + (s.phase === "running" ? "ok" : "warn");
  text("where", i.nodes + " nodes on " + i.store + " · interval " + i.intervalMs + " ms, timeout " + i.timeoutMs + " ms · " +
    (i.killEverySeconds > 0 ? "killing the leader every " + i.killEverySeconds + " s" : "no kills"));
  const pending = s.failovers.length > 0 && s.failovers[s.failovers.length - 1].durationMs === null;
  text("leader", s.leader ? s.leader.id : (pending ? "election under way" : "none yet"));
  $("leader").className = "big " + (s.leader ? "leader" : "warn");
  text("leader-detail", s.leader ? "era " + s.leader.era + " · fencing token " + s.leader.token + " · version " + s.leader.version + (s.leader.nonce === null ? "" : " · nonce " + s.leader.nonce) : "");
  const done = s.failovers.filter((f) => f.durationMs !== null);
  text("failovers", String(done.length));
  const last = done[done.length - 1];
  text("failover-detail", "elections " + s.elections + (last ? " · last " + (last.durationMs / 1000).toFixed(2) + " s (" + last.victim + " → " + last.newLeader + ")" : ""));
  const rows = $("nodes");
  rows.replaceChildren();
  for (const n of s.nodes) {
    const gone = n.life === "killed" || n.life === "crashed" || n.life === "stopped";
    const tr = document.createElement("tr");
    if (gone) tr.className = "gone";
    const role = n.life === "killed" ? "KILLED" : gone ? n.life : (n.role || "starting");
    const cells = [n.id, n.pid === null ? "–" : String(n.pid), role, n.follows || "–", gone || n.nonce === null ? "–" : String(n.nonce), gone || n.storeRoundTripMs === null ? "–" : n.storeRoundTripMs.toFixed(1) + " ms", n.pongRoundTripMs === null ? "–" : n.pongRoundTripMs.toFixed(1) + " ms", gone ? "" : "v" + n.version + " " + n.members.join(" ")];
    cells.forEach((c, k) => {
      const td = document.createElement("td");
      td.textContent = c;
      if (k === 2) td.className = role === "leader" ? "leader" : role === "candidate" ? "warn" : role === "KILLED" ? "bad" : "";
      if (k === 4 || k === 5 || k === 6) td.className = "num";
      if (k === 7) td.className = "members";
      tr.append(td);
    });
    rows.append(tr);
  }
  text("two-leaders", s.twoLeaders.times === 0 ? "never" : s.twoLeaders.times + "× (" + (s.twoLeaders.ms / 1000).toFixed(2) + " s)");
  $("two-leaders").className = "big " + (s.twoLeaders.times === 0 ? "ok" : "bad");
  $("topology-box").hidden = s.topology.length === 0;
  $("topology").replaceChildren(...s.topology.map((c) => {
    const li = document.createElement("li");
    li.textContent = c.verdict !== null ? c.verdict + (c.detail ? " · " + c.detail : "") : c.kind + (c.detail ? " " + c.detail : "") + ": under way (leader " + c.before.id + ", era " + c.before.era + ")";
    if (c.verdict !== null) li.className = c.after && c.after.id === c.before.id && c.after.era === c.before.era && c.elections === 0 && c.twoLeaders === 0 ? "ok" : "bad";
    return li;
  }));
  text("log", s.log.slice().reverse().join("\\n"));
}
render(JSON.parse($("initial").textContent));
const source = new EventSource("/events");
source.addEventListener("open", () => { text("link", "live"); $("link").className = "badge ok"; });
source.addEventListener("cluster", (e) => render(JSON.parse(e.data)));
source.addEventListener("end", () => { source.close(); text("link", "the demo has ended"); $("link").className = "badge warn"; });
source.addEventListener("error", () => { text("link", "disconnected"); $("link").className = "badge bad"; });
`;

import type { NodeStatus } from './StatusPage.js';

/** `<` and friends as JSON escapes, so that a JSON text can sit inside a `<script>` element. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Styles shared by the node's dashboard and the demo's: readable on a phone, no external assets. */
export const DASHBOARD_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#667;--card:#f5f6f8;--line:#dde;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--lead:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8b949e;--card:#161b22;--line:#30363d;--ok:#3fb950;--bad:#f85149;--warn:#d29922;--lead:#58a6ff}}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;padding:12px;background:var(--bg);color:var(--fg);max-width:70em;margin-inline:auto}
h1{font-size:1.3em;margin:.2em 0;display:flex;flex-wrap:wrap;gap:.5em;align-items:center}
h2{font-size:1.05em;margin:1em 0 .4em}
.sub{color:var(--muted);font-size:.9em;word-break:break-all}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(15em,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 12px}
.card h3{margin:0 0 .3em;font-size:.8em;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.big{font-size:1.35em;font-weight:600;word-break:break-all}
.badge{display:inline-block;padding:.1em .55em;border-radius:1em;font-size:.8em;font-weight:600;border:1px solid currentColor}
.leader{color:var(--lead)}.follower{color:var(--muted)}.candidate,.observer{color:var(--warn)}
.ok{color:var(--ok)}.bad{color:var(--bad)}.warn{color:var(--warn)}
table{border-collapse:collapse;width:100%}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
th,td{text-align:left;padding:.35em .5em;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8em;color:var(--muted);font-weight:600}
td.num{font-variant-numeric:tabular-nums;white-space:nowrap}
pre{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.7em;overflow:auto;max-height:22em;font-size:.82em;margin:0;white-space:pre-wrap;word-break:break-word}
a{color:var(--lead)}
footer{margin-top:1em;font-size:.85em;color:var(--muted)}
.note{margin:.4em 0 0;font-size:.85em;color:var(--muted)}
`;

/**
 * The status page: a live dashboard of one node. The first status is embedded in the page; a
 * small inline script renders it and every later one, which it receives over Server-Sent Events
 * from `/events` (the browser's `EventSource`, which reconnects by itself). Self-contained: no
 * external script, style or font.
 */
export function renderDashboard(s: NodeStatus): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>roster node ${escape(s.id)}</title>
<style>${DASHBOARD_CSS}</style>
</head><body>
<h1>roster node <span id="id">${escape(s.id)}</span> <span id="role" class="badge">${escape(s.role ?? s.state)}</span> <span id="link" class="badge warn">connecting…</span></h1>
<div class="sub" id="where">${escape(s.group)}/${escape(s.env)} on ${escape(s.store)}</div>
<noscript><p>This page updates itself with JavaScript; without it, see <a href="/status.json">/status.json</a>.</p></noscript>
<h2>group</h2>
<div class="grid">
<div class="card"><h3>leader</h3><div class="big" id="leader">–</div><div class="sub" id="leader-detail"></div></div>
<div class="card"><h3>membership</h3><div class="big" id="version">–</div><div class="sub" id="member-count"></div></div>
<div class="card"><h3>this node</h3><div class="big" id="health">–</div><div class="sub" id="ready"></div></div>
<div class="card"><h3>store</h3><div class="big" id="store">–</div><div class="sub" id="store-rtt" title="${STORE_RTT_TITLE}"></div><div class="sub" id="store-detail"></div></div>
</div>
<h2>members</h2>
<div class="scroll"><table><thead><tr><th>id</th><th>weight</th><th id="pong-head" title="${PONG_TITLE}">PONG round trip</th><th></th></tr></thead><tbody id="members"></tbody></table></div>
<p class="note">PONG round trip: from a member's PING to finding the leader's PONG, about I when every PING is answered; a multiple of I counts missed PONGs. It is a cadence, not a latency: the store round trip above is.</p>
<h2>event log</h2>
<pre id="log"></pre>
<footer><a href="/status.json">status.json</a> · <a href="/metrics">metrics</a> · <a href="/healthz">healthz</a> · <a href="/readyz">readyz</a> · interval <span id="interval"></span>, timeout <span id="timeout"></span></footer>
<script type="application/json" id="initial">${jsonForScript(s)}</script>
<script>${DASHBOARD_SCRIPT}</script>
</body></html>
`;
}

/** What the store round trip is, as the page's tooltip says it. */
const STORE_RTT_TITLE = 'a moving average of how long this node\'s store operations take, from call to answer';

/** What the PONG round trip is, as the page's tooltip says it. */
const PONG_TITLE = 'from the member\'s PING to finding the leader\'s PONG in its place, as the member measured it: about the interval I when every PING is answered';

/** The dashboard's script: renders a status object; follows `/events` as Server-Sent Events. */
const DASHBOARD_SCRIPT = `
"use strict";
const $ = (id) => document.getElementById(id);
const text = (id, value) => { $(id).textContent = value; };
const ms = (v) => v === null || v === undefined ? "–" : v.toFixed(1) + " ms";
// PINGs are written every interval I: an interval of about kI means k - 1 PONGs were missed.
const pongsMissed = (v, i) => v === null || v === undefined ? 0 : Math.max(0, Math.round(v / i) - 1);
function render(s) {
  text("role", s.role || s.state);
  $("role").className = "badge " + (s.role || "");
  document.title = "roster " + s.id + ": " + (s.role || s.state) + (s.leader ? " · leader " + s.leader.id : "");
  text("leader", s.leader ? s.leader.id + (s.leader.id === s.id ? " (this node)" : "") : "none known");
  $("leader").className = "big" + (s.leader ? " leader" : " warn");
  text("leader-detail", s.leader ? "era " + s.leader.era + " · fencing token " + s.leader.token + " · nonce " + s.leader.nonce : "");
  text("version", "version " + s.members.version);
  text("member-count", s.members.list.length + " member" + (s.members.list.length === 1 ? "" : "s"));
  const live = s.probes.healthz, ready = s.probes.readyz;
  text("health", live.ok ? (ready.ok ? "healthy, ready" : "healthy, not ready") : "unhealthy");
  $("health").className = "big " + (live.ok ? (ready.ok ? "ok" : "warn") : "bad");
  text("ready", s.state + (live.ok ? "" : " · " + live.reason) + (ready.ok ? "" : " · " + ready.reason));
  const st = s.storeHealth;
  text("store", st.reachable ? "reachable" : "unreachable");
  $("store").className = "big " + (st.reachable ? "ok" : "bad");
  text("store-rtt", "round trip " + ms(s.latency.storeRoundTripMs));
  text("store-detail", (st.lastSuccessAgoMs === null ? "no answer yet" : "last answer " + Math.round(st.lastSuccessAgoMs) + " ms ago") +
    " · window read " + ms(s.latency.windowReadMs) + (st.lastError ? " · last error " + st.lastError.kind + ": " + st.lastError.message : ""));
  const rows = $("members");
  rows.replaceChildren();
  for (const m of s.members.list) {
    const tr = document.createElement("tr");
    const isLeader = s.leader && m.id === s.leader.id;
    const missed = pongsMissed(m.pongRoundTripMs, s.intervalMs);
    const cells = [m.id, String(m.weight), ms(m.pongRoundTripMs) + (missed > 0 ? " (" + missed + " missed)" : ""), (isLeader ? "leader" : "") + (m.id === s.id ? (isLeader ? ", " : "") + "this node" : "")];
    cells.forEach((c, i) => { const td = document.createElement("td"); td.textContent = c; if (i === 1 || i === 2) td.className = "num" + (i === 2 && missed > 0 ? " warn" : ""); if (i === 3 && isLeader) td.className = "leader"; tr.append(td); });
    rows.append(tr);
  }
  if (s.members.list.length === 0) { const tr = document.createElement("tr"); const td = document.createElement("td"); td.colSpan = 4; td.textContent = "none known"; tr.append(td); rows.append(tr); }
  text("log", s.recent.slice().reverse().join("\\n"));
  text("interval", s.intervalMs + " ms");
  text("timeout", s.timeoutMs + " ms");
}
render(JSON.parse($("initial").textContent));
function connect() {
  const source = new EventSource("/events");
  source.addEventListener("open", () => { text("link", "live"); $("link").className = "badge ok"; });
  source.addEventListener("status", (e) => render(JSON.parse(e.data)));
  source.addEventListener("error", () => {
    text("link", "disconnected, retrying…"); $("link").className = "badge bad";
    if (source.readyState === EventSource.CLOSED) { source.close(); setTimeout(connect, 2000); }
  });
}
connect();
`;

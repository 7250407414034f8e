import type { NodeEvent, OutputStream } from '@roster/cli';
import { verdict } from './ClusterChanges.js';
import type { ClusterView, NodeView } from './ClusterView.js';
import { elapsed, seconds, type DemoDisplay, type DemoInfo } from './DemoDisplay.js';

const ESC = '\u001b[';
const RECENT = 8;
const REDRAW_MS = 100;

/**
 * The demo on a terminal: a frame of the leader, each node's role and view of the members, and the
 * recent notes, redrawn in place (ANSI cursor movement) at most every 100 ms.
 */
export class LiveDashboard implements DemoDisplay {
  readonly #out: OutputStream;
  readonly #view: ClusterView;
  readonly #info: DemoInfo;
  readonly #now: () => number;
  readonly #color: boolean;
  readonly #recent: string[] = [];
  readonly #timer: NodeJS.Timeout;
  #drawn = 0;
  #second = -1;
  #endsAt: number | undefined;
  #dirty = true;
  #closed = false;

  constructor(out: OutputStream, view: ClusterView, info: DemoInfo, options: { now: () => number; color: boolean }) {
    this.#out = out;
    this.#view = view;
    this.#info = info;
    this.#now = options.now;
    this.#color = options.color;
    this.#out.write(`${ESC}?25l`); // hide the cursor while redrawing
    this.#timer = setInterval(() => this.#draw(), REDRAW_MS);
  }

  note(at: number, text: string): void {
    this.#recent.push(`${elapsed(at)}  ${text}`);
    if (this.#recent.length > RECENT) this.#recent.shift();
    this.#dirty = true;
  }

  event(_at: number, _event: NodeEvent): void {
    this.#dirty = true;
  }

  changed(): void {
    this.#dirty = true;
  }

  running(at: number, endsAt: number): void {
    this.#endsAt = endsAt;
    this.note(at, 'every node is up');
  }

  freeze(): void {
    this.close();
  }

  close(): void {
    if (this.#closed) return;
    clearInterval(this.#timer);
    this.#dirty = true;
    this.#draw();
    this.#closed = true;
    this.#out.write(`${ESC}?25h`);
  }

  #draw(): void {
    if (this.#closed) return;
    // The remaining time changes every second even when nothing else does.
    const second = Math.floor(this.#now() / 1000);
    if (!this.#dirty && second === this.#second) return;
    this.#dirty = false;
    this.#second = second;
    const width = Math.max(40, (this.#out.columns ?? 100) - 1);
    const lines = this.#frame().map((line) => clip(line, width));
    const up = this.#drawn > 0 ? `${ESC}${this.#drawn}F` : '';
    this.#out.write(`${up}${ESC}J${lines.join('\n')}\n`);
    this.#drawn = lines.length;
  }

  #frame(): string[] {
    const info = this.#info;
    const view = this.#view;
    const left = this.#endsAt === undefined ? info.durationSeconds : Math.max(0, (this.#endsAt - this.#now()) / 1000);
    const kills = info.killEverySeconds > 0 ? `killing the leader every ${info.killEverySeconds} s` : 'no kills';
    const leader = view.leaderNode;
    const done = view.failovers.filter((f) => f.durationMs !== undefined);
    const last = done.at(-1);
    const lines = [
      this.#bold(`Roster demo: ${info.nodes} nodes on ${info.store}`),
      `interval ${info.intervalMs} ms, timeout ${info.timeoutMs} ms, ${kills}, ${this.#endsAt === undefined ? 'starting' : `${Math.ceil(left)} s left`} (Ctrl-C to stop)`,
      ...(info.url ? [`watch it live in a browser: ${info.url}`] : []),
      '',
      leader?.leader
        ? `  leader ${this.#paint(leader.id, 32)}   era ${leader.leader.era}   token ${leader.leader.token}   version ${leader.version}${leader.nonce === undefined ? '' : `   nonce ${leader.nonce}`}`
        : `  leader ${this.#paint(view.pending ? 'none: election under way' : 'none yet', 33)}`,
      `  elections ${view.elections}   failovers ${done.length}${last ? `, last ${seconds(last.durationMs!)} (timeout ${seconds(info.timeoutMs)})` : ''}   two leaders at once: ${view.overlaps.length === 0 ? 'never' : this.#paint(`${view.overlaps.length}×`, 31)}`,
      ...view.topology.map((c) => `  ${c.after === undefined ? `${c.kind}: under way (leader ${c.before.id}, era ${c.before.era})` : verdict(c)}`),
      '',
      this.#dim(`  ${'NODE'.padEnd(6)}${'PID'.padEnd(9)}${'ROLE'.padEnd(11)}${'FOLLOWS'.padEnd(9)}${'NONCE'.padEnd(7)}MEMBERS AS IT SEES THEM`),
      ...view.nodes.filter((n) => shown(n, view)).map((n) => this.#row(n)),
      '',
      this.#dim('  recent'),
      ...this.#recent.map((line) => `  ${line}`),
    ];
    return lines;
  }

  #row(n: NodeView): string {
    const role = n.life === 'killed' ? 'KILLED' : n.life === 'crashed' ? 'crashed' : (n.role ?? 'starting');
    const code = role === 'leader' ? 32 : role === 'candidate' ? 33 : role === 'KILLED' || role === 'crashed' ? 31 : 0;
    const gone = n.life === 'killed' || n.life === 'crashed';
    const members = gone ? '' : `v${n.version} ${n.members.join(' ')}`;
    return `  ${n.id.padEnd(6)}${String(n.pid ?? '-').padEnd(9)}${this.#paint(role.padEnd(11), code)}${(n.leader?.id ?? '-').padEnd(9)}${String(gone ? '' : (n.nonce ?? '-')).padEnd(7)}${members}`;
  }

  #paint(text: string, code: number): string {
    return this.#color && code ? `${ESC}${code}m${text}${ESC}0m` : text;
  }
  #bold(text: string): string {
    return this.#color ? `${ESC}1m${text}${ESC}0m` : text;
  }
  #dim(text: string): string {
    return this.#color ? `${ESC}2m${text}${ESC}0m` : text;
  }
}

/** Alive nodes, and a killed one until its failover is measured. */
function shown(n: NodeView, view: ClusterView): boolean {
  if (n.life === 'starting' || n.life === 'running' || n.life === 'stopping') return true;
  return n.life === 'killed' && view.pending?.victim === n.id;
}

/** `line` cut to `width` visible characters, keeping ANSI colour codes out of the count. */
function clip(line: string, width: number): string {
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\u001b') {
      const end = line.indexOf('m', i);
      out += line.slice(i, end + 1);
      i = end;
      continue;
    }
    if (visible === width) continue;
    out += line[i];
    visible++;
  }
  return out;
}

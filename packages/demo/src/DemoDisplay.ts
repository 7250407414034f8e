import type { NodeEvent, OutputStream } from '@roster/cli';

/** What the screen shows of the demo, besides the cluster itself. */
export interface DemoInfo {
  readonly nodes: number;
  readonly store: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** Seconds between kills; 0: never. */
  readonly killEverySeconds: number;
  readonly durationSeconds: number;
  /** Where the demo can be watched in a browser, when it serves a page. */
  readonly url?: string;
}

/** How the demo reports: redrawn in place on a terminal, a plain log otherwise. */
export interface DemoDisplay {
  /** Something worth a line of its own: a kill, a start, a measured failover, a warning. */
  note(at: number, text: string): void;
  /** A node's update. */
  event(at: number, event: NodeEvent): void;
  /** The cluster view changed in a way only the live screen shows (a new Version). */
  changed(): void;
  /** Every node is up at `at`; the run ends at `endsAt` (the demo's clock, ms). */
  running(at: number, endsAt: number): void;
  /** The run is over and the nodes are being stopped: the live screen keeps its last frame. */
  freeze(): void;
  /** Draws the last frame and stops; later calls do nothing. */
  close(): void;
}

/** Several displays as one: each call goes to every one of them, in order. */
export class TeeDisplay implements DemoDisplay {
  readonly #displays: readonly DemoDisplay[];
  constructor(...displays: DemoDisplay[]) {
    this.#displays = displays;
  }
  note(at: number, text: string): void {
    for (const d of this.#displays) d.note(at, text);
  }
  event(at: number, event: NodeEvent): void {
    for (const d of this.#displays) d.event(at, event);
  }
  changed(): void {
    for (const d of this.#displays) d.changed();
  }
  running(at: number, endsAt: number): void {
    for (const d of this.#displays) d.running(at, endsAt);
  }
  freeze(): void {
    for (const d of this.#displays) d.freeze();
  }
  close(): void {
    for (const d of this.#displays) d.close();
  }
}

/** `+12.34s`: `ms` since the demo started. */
export function elapsed(ms: number): string {
  return `+${(ms / 1000).toFixed(2)}s`.padStart(8);
}

/** `1.23 s`. */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** One line per note and per node event, for logs and pipes. */
export class PlainLog implements DemoDisplay {
  readonly #out: OutputStream;
  #closed = false;

  constructor(out: OutputStream) {
    this.#out = out;
  }

  note(at: number, text: string): void {
    if (!this.#closed) this.#out.write(`${elapsed(at)}  ${text}\n`);
  }

  event(at: number, event: NodeEvent): void {
    if (!this.#closed) this.#out.write(`${elapsed(at)}  ${event.id.padEnd(4)} ${describeForLog(event)}\n`);
  }

  changed(): void {}

  running(at: number, endsAt: number): void {
    this.note(at, `every node is up; the demo ends at ${elapsed(endsAt).trim()}`);
  }

  freeze(): void {}

  close(): void {
    this.#closed = true;
  }
}

function describeForLog(event: NodeEvent): string {
  switch (event.event) {
    case 'role':
      return event.previous === null ? `role ${event.role}` : `role ${event.previous} → ${event.role} (${event.reason})`;
    case 'leader':
      return event.leader === null ? 'follows no leader' : `follows ${event.leader} (era ${event.era}, token ${event.token})`;
    case 'members': {
      const change = [...event.added.map((id) => `+${id}`), ...event.removed.map((id) => `-${id}`)].join(' ');
      return `sees v${event.version} [${event.members.join(' ')}]${change ? `  ${change}` : ''}`;
    }
    case 'stopped':
      return 'stopped';
  }
}

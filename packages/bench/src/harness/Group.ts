/**
 * A group of nodes of one system, each a real child process, and what they reported: who leads
 * now, and every line with its timestamp. The measurements in `../measure/` act on a group
 * (SIGKILL, SIGSTOP/SIGCONT, SIGTERM, a new node) and read the lines that follow.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { waitFor } from '@roster/testing';
import { isRunning, kill, spawnTracked, terminate, type Tracked } from '../infra/processes.js';
import type { NodeLine, System } from '../systems/System.js';

/** One node of a group. */
export interface GroupNode {
  readonly name: string;
  readonly proc: Tracked;
  /** When it was spawned (ms since the epoch). */
  readonly spawnedAt: number;
  ready: boolean;
  leading: boolean;
  paused: boolean;
  /** Its latest member list, when the system reports members. */
  members: readonly string[];
}

/** A line of the group's log. */
export interface LoggedLine extends NodeLine {
  readonly node: string;
}

/** A group of nodes of one system. */
export class Group {
  readonly system: System;
  readonly nodes = new Map<string, GroupNode>();
  readonly log: LoggedLine[] = [];
  #next = 1;
  #listeners = new Set<() => void>();

  constructor(system: System) {
    this.system = system;
  }

  /** Spawns one more node; it counts as ready once it prints its first line. */
  spawn(): GroupNode {
    const name = `n${this.#next++}`;
    const { file, args } = this.system.command(name);
    let node: GroupNode | undefined;
    const proc = spawnTracked(file, args, {
      onLine: (line) => {
        const parsed = this.system.parse(line);
        if (!parsed || !node) return;
        this.#apply(node, parsed);
      },
    });
    node = { name, proc, spawnedAt: Date.now(), ready: false, leading: false, paused: false, members: [] };
    this.nodes.set(name, node);
    void proc.exited.then(() => {
      node.leading = false;
      this.nodes.delete(name);
      this.#notify();
    });
    return node;
  }

  #apply(node: GroupNode, line: NodeLine): void {
    this.log.push({ ...line, node: node.name });
    if (line.kind === 'ready') node.ready = true;
    if (line.kind === 'leader') node.leading = true;
    if (line.kind === 'follower' || line.kind === 'stopped') node.leading = false;
    if (line.kind === 'members' && line.members) node.members = line.members;
    this.#notify();
  }

  #notify(): void {
    for (const listener of this.#listeners) listener();
  }

  /** The live nodes. */
  live(): GroupNode[] {
    return [...this.nodes.values()].filter((n) => isRunning(n.proc));
  }

  /** The one node that says it leads, when exactly one does. */
  leader(): GroupNode | undefined {
    const leading = this.live().filter((n) => n.leading);
    return leading.length === 1 ? leading[0] : undefined;
  }

  /** Starts `count` nodes and waits until the group is steady. */
  async start(count: number, timeoutMs = 30_000): Promise<void> {
    for (let i = 0; i < count; i++) this.spawn();
    await this.waitSteady(timeoutMs);
  }

  /**
   * Waits until every live node is ready, exactly one leads, nothing changed leadership for
   * `quietMs` (the system's timeout by default) and, when the system reports members, every node
   * lists exactly the live nodes.
   */
  async waitSteady(timeoutMs = 30_000, quietMs = this.system.timeoutMs): Promise<GroupNode> {
    await waitFor(
      () => {
        const live = this.live();
        if (live.length === 0 || live.some((n) => !n.ready || n.paused) || !this.leader()) return false;
        const last = this.lastLeadershipChange();
        if (last !== undefined && Date.now() - last < quietMs) return false;
        if (this.system.reportsMembers) {
          const names = live.map((n) => n.name).sort().join(' ');
          if (live.some((n) => [...n.members].sort().join(' ') !== names)) return false;
        }
        return true;
      },
      { timeoutMs, what: `${this.system.label}: a steady group (${this.describe()})`, everyMs: 25 },
    );
    return this.leader()!;
  }

  /** When the last `leader` or `follower` line was seen (its `t`). */
  lastLeadershipChange(): number | undefined {
    for (let i = this.log.length - 1; i >= 0; i--) {
      const line = this.log[i]!;
      if (line.kind === 'leader' || line.kind === 'follower') return line.t;
    }
    return undefined;
  }

  /** Lines logged since index `from` that match. */
  since(from: number, match: (line: LoggedLine) => boolean): LoggedLine[] {
    return this.log.slice(from).filter(match);
  }

  /** Waits for the first line logged from index `from` on that matches; `undefined` on timeout. */
  async waitLine(from: number, match: (line: LoggedLine) => boolean, timeoutMs: number): Promise<LoggedLine | undefined> {
    const find = (): LoggedLine | undefined => this.log.slice(from).find(match);
    const found = find();
    if (found) return found;
    return new Promise((resolve) => {
      const done = (line: LoggedLine | undefined): void => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        resolve(line);
      };
      const listener = (): void => {
        const line = find();
        if (line) done(line);
      };
      const timer = setTimeout(() => done(undefined), timeoutMs);
      this.#listeners.add(listener);
    });
  }

  /** SIGKILL. */
  crash(node: GroupNode): Promise<void> {
    return kill(node.proc);
  }

  /** SIGSTOP for `ms`, then SIGCONT. Returns the times of both signals. */
  async pause(node: GroupNode, ms: number): Promise<{ stoppedAt: number; resumedAt: number }> {
    node.paused = true;
    const stoppedAt = Date.now();
    node.proc.child.kill('SIGSTOP');
    await delay(Math.max(0, stoppedAt + ms - Date.now()));
    node.proc.child.kill('SIGCONT');
    const resumedAt = Date.now();
    node.paused = false;
    return { stoppedAt, resumedAt };
  }

  /** SIGTERM (a graceful stop), waiting until it exits. */
  stop(node: GroupNode, graceMs = 5000): Promise<void> {
    return terminate(node.proc, graceMs);
  }

  /** Stops every node gracefully. */
  async close(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => terminate(n.proc, 3000)));
  }

  /** One line of who is what, for error messages. */
  describe(): string {
    return [...this.nodes.values()]
      .map((n) => `${n.name}:${!isRunning(n.proc) ? 'exited' : !n.ready ? 'starting' : n.leading ? 'LEADER' : 'follower'}${this.system.reportsMembers ? `[${n.members.length}]` : ''}`)
      .join(' ');
  }
}

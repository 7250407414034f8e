/**
 * Roster through its process contract: the real `roster node --json` CLI, whose `role`, `members`
 * and `stopped` lines (docs/cli.md) are translated into the harness's terms.
 */
import { rosterCliPath } from '../paths.js';
import { jsonLine, type NodeLine, type System } from './System.js';

/** Options of {@link rosterSystem}. */
export interface RosterSystemOptions {
  readonly storeUrl: string;
  /** The group (`--group`); every system gets its own. */
  readonly group: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  /** The store's kind, when it is not one redis-server: names the system (`roster-sentinel-100-500`, `roster-etcd-100-500`). */
  readonly storeKind?: 'sentinel' | 'etcd' | 'postgres';
}

/** Translates one `roster node --json` line. */
export function parseRosterLine(line: string): NodeLine | undefined {
  const o = jsonLine(line);
  if (!o || typeof o.ts !== 'number') return undefined;
  const t = o.ts;
  switch (o.event) {
    case 'role':
      if (o.previous === null) return { t, kind: 'ready' };
      if (o.role === 'leader') return { t, kind: 'leader' };
      if (o.previous === 'leader') return { t, kind: 'follower' };
      return undefined;
    case 'members':
      return Array.isArray(o.members) ? { t, kind: 'members', members: o.members.map(String) } : undefined;
    case 'stopped':
      return { t, kind: 'stopped' };
    default:
      return undefined;
  }
}

/** Roster at `I`/`T` on `storeUrl`. */
export function rosterSystem(options: RosterSystemOptions): System {
  const { intervalMs: i, timeoutMs: t } = options;
  const cli = rosterCliPath();
  return {
    name: options.storeKind === undefined ? `roster-${i}-${t}` : `roster-${options.storeKind}-${i}-${t}`,
    label: options.storeKind === 'sentinel' ? `Roster on Redis Sentinel I=${i}/T=${t}` : options.storeKind === 'etcd' ? `Roster on etcd I=${i}/T=${t}` : options.storeKind === 'postgres' ? `Roster on PostgreSQL I=${i}/T=${t}` : `Roster I=${i}/T=${t}`,
    timing: options.storeKind === 'sentinel' ? `I ${i} ms, T ${t} ms; a master, 2 replicas, 3 sentinels` : options.storeKind === 'etcd' ? `I ${i} ms, T ${t} ms; one etcd member, EtcdKV` : options.storeKind === 'postgres' ? `I ${i} ms, T ${t} ms; one PostgreSQL, PostgresKV` : `I ${i} ms, T ${t} ms`,
    timeoutMs: t,
    settleMs: 2 * t + 3 * i,
    reportsMembers: true,
    command: (name) => ({
      file: process.execPath,
      args: [cli, 'node', '--store', options.storeUrl, '--group', options.group, '--env', 'bench', '--id', name, '--interval', String(i), '--timeout', String(t), '--json'],
    }),
    parse: parseRosterLine,
  };
}

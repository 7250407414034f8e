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
  /** The renew deadline R (`--renew-deadline`), when not the default T/2: names the system (`roster-100-500-r350`). */
  readonly renewDeadlineMs?: number;
  /** The store's kind, when it is not one redis-server: names the system (`roster-sentinel-100-500`, `roster-etcd-100-500`). */
  readonly storeKind?: 'sentinel' | 'etcd' | 'postgres' | 'mariadb' | 'nats';
}

/** How the tables name each kind of store, and what the bench deploys of it. */
const STORE_KINDS: Readonly<Record<NonNullable<RosterSystemOptions['storeKind']>, { readonly label: string; readonly deployment: string }>> = {
  sentinel: { label: 'Redis Sentinel', deployment: 'a master, 2 replicas, 3 sentinels' },
  etcd: { label: 'etcd', deployment: 'one etcd member, EtcdKV' },
  postgres: { label: 'PostgreSQL', deployment: 'one PostgreSQL, PostgresKV' },
  mariadb: { label: 'MariaDB', deployment: 'one MariaDB, MySQLKV' },
  nats: { label: 'NATS JetStream', deployment: 'one nats-server, NatsKV' },
};

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
      if (o.role === 'candidate') return { t, kind: 'stood' };
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
  const r = options.renewDeadlineMs;
  const base = rosterBase(options);
  if (r === undefined) return base;
  return {
    ...base,
    name: `${base.name}-r${r}`,
    label: `${base.label}/R=${r}`,
    timing: `${base.timing}, R ${r} ms`,
    command: (name) => {
      const c = base.command(name);
      return { file: c.file, args: [...c.args, '--renew-deadline', String(r)] };
    },
  };
}

/** Roster at `I`/`T` on `storeUrl`, with the default renew deadline. */
function rosterBase(options: RosterSystemOptions): System {
  const { intervalMs: i, timeoutMs: t } = options;
  const cli = rosterCliPath();
  return {
    name: options.storeKind === undefined ? `roster-${i}-${t}` : `roster-${options.storeKind}-${i}-${t}`,
    label: options.storeKind === undefined ? `Roster I=${i}/T=${t}` : `Roster on ${STORE_KINDS[options.storeKind].label} I=${i}/T=${t}`,
    timing: options.storeKind === undefined ? `I ${i} ms, T ${t} ms` : `I ${i} ms, T ${t} ms; ${STORE_KINDS[options.storeKind].deployment}`,
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

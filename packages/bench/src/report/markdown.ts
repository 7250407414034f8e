/** docs/benchmarks.md from a result record. */
import type { BenchResult, SystemResult } from '../result.js';
import type { ScaleResult } from '../scale/runScale.js';
import type { Summary } from './stats.js';

/** The plot files, relative to docs/. */
export const PLOT_FILES = { leadership: 'benchmarks-failover-vs-stall.svg', scale: 'benchmarks-cost-per-member.svg' } as const;

const num = (x: number | null | undefined, digits = 0): string =>
  x === null || x === undefined || Number.isNaN(x) ? '—' : x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const ms = (x: number | null | undefined): string => (x === null || x === undefined || Number.isNaN(x) ? '—' : `${num(x)} ms`);

function medianP90(s: Summary | undefined, missed = 0): string {
  if (!s || s.n === 0) return missed ? `none in ${missed}` : '—';
  return `${num(s.median)} / ${num(s.p90)} (n=${s.n}${missed ? `, ${missed} missed` : ''})`;
}

function tolerance(r: SystemResult): string {
  if (!r.stall) return '—';
  return `${r.stall.censored ? '≥ ' : ''}${num(r.stall.toleranceMs)} ms`;
}

/** The disruption-free pause (results written before it was measured have none). */
function disruptionFree(r: SystemResult): string {
  if (r.stall?.disruptionFreeMs === undefined) return '—';
  return `${r.stall.censored && r.stall.disruptionFreeMs === r.stall.toleranceMs ? '≥ ' : ''}${num(r.stall.disruptionFreeMs)} ms`;
}

/** Per grid step: how many tries moved leadership, e.g. `200: 1/3`. */
function stallSteps(r: SystemResult): string {
  if (!r.stall) return '';
  const steps = new Map<number, { moved: number; blips: number; stood: number; n: number }>();
  for (const t of r.stall.tries) {
    const s = steps.get(t.pauseMs) ?? { moved: 0, blips: 0, stood: 0, n: 0 };
    s.n++;
    if (t.moved) s.moved++;
    else if (t.leaderSteppedDown) s.blips++;
    else if (t.disrupted) s.stood++;
    steps.set(t.pauseMs, s);
  }
  const all = [...steps.entries()];
  const shown = all.length > 8 ? [...all.slice(0, 2), undefined, ...all.slice(-5)] : all;
  const more = (s: { blips: number; stood: number }): string => {
    const parts = [...(s.blips ? [`${s.blips} step-down`] : []), ...(s.stood ? [`${s.stood} stood`] : [])];
    return parts.length ? ` (${parts.join(', ')})` : '';
  };
  return shown.map((e) => (e ? `${e[0]}: ${e[1].moved}/${e[1].n}${more(e[1])}` : '…')).join(', ');
}

function leadershipTable(result: BenchResult): string[] {
  const rows = result.systems.map(
    (r) =>
      `| ${r.label} | ${r.timing} | ${medianP90(r.failover?.summary, r.failover?.missed)} | ${tolerance(r)} | ${disruptionFree(r)} | ${r.ratio === null || r.ratio === undefined ? '—' : num(r.ratio, 2)} | ${medianP90(r.resign?.summary, r.resign?.missed)}${r.resign?.summary.n ? `, max ${num(r.resign.summary.max)}` : ''} |`,
  );
  return [
    '| system | timing | crash failover ms, median / p90 | stall tolerance | disruption-free pause | failover ÷ tolerance | graceful resign ms, median / p90 |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ];
}

function scaleTable(rows: readonly ScaleResult[]): string[] {
  return [
    '| store | members | I / T | processes | converge | commands sent / member / interval (Redis calls, with the calls scripts make inside) | bytes Redis sends / member / interval | bytes sent / s | leader CPU | leader CPU µs / member / interval | failover | all follow the new leader | note |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${storeLabel(r.store)} | ${num(r.members)} | ${r.intervalMs} ms / ${r.timeoutMs} ms | 1 + 1 + ${r.workers} | ${r.convergeMs === null ? `not within ${num(r.convergeLimitMs / 1000)} s` : ms(r.convergeMs)} | ${num(r.commandsPerMemberInterval, 2)} (${num(r.redisCallsPerMemberInterval, 2)}) | ${num(r.bytesOutPerMemberInterval)} | ${num(r.bytesOutPerSecond / 1000)} kB | ${num(r.leaderCpuPercent, 1)} % | ${num(r.leaderCpuUsPerMemberInterval, 1)} | ${ms(r.failoverMs)} | ${ms(r.allFollowMs)} | ${[r.note, r.error].filter(Boolean).join('; ')} |`,
    ),
  ];
}

function commandMix(rows: readonly ScaleResult[]): string[] {
  return rows
    .filter((r) => Object.keys(r.commandsByName).length > 0)
    .map((r) => `- ${storeLabel(r.store)}, N=${num(r.members)}: ${Object.entries(r.commandsByName).slice(0, 6).map(([name, n]) => `${name} ${num(n, 2)}`).join(', ')}`);
}

/**
 * How the renew deadline R trades the disruption-free pause against safety, and why the default is
 * T/2 (the `/R=` rows of the table, `--only roster-renew`, measure it).
 */
const RENEW_DEADLINE: readonly string[] = [
  '### The renew deadline: pauses the leader\'s work survives, against clock-rate margin',
  '',
  'The peers have no lease apart from their TTL: a pause either loses leadership or changes nothing, so their disruption-free pause is their stall tolerance. Roster separates the two: its followers take over only after T − I/2, while its leader stops acting as leader (and stops its work) R after its last renewal, so that it has fenced itself before anyone else can lead.',
  '',
  'Roster\'s leader may act only until R after the start of its last successful cycle (`renewDeadlineMs`, default T/2). A pause longer than what is left of that lease lapses it: the leader is shown as `candidate` (reason `lease-expired`), `node.leadership` and every `whileLeader()` signal abort, and the work restarts when the lease is re-validated, although nobody took over. So the disruption-free pause is R − I at worst (the lease has R − I to R left, depending on where in its cycle the pause falls: in the simulator, without load, exactly 50, 150 and 250 ms for R = 150, 250 and 350 ms at I = 100 ms, `sim/test/renewDeadline.test.ts`), while the stall tolerance is T − I/2 whatever R; on a loaded machine both shrink by the leader\'s late cycles (the figures above). A longer R rides out longer pauses and costs safety margin: the lease must end before anyone can lead, T after the leader\'s last publication was seen, on clocks whose rates may differ; with rates differing by a factor ρ the lease stays safe while (1 + ρ) · R < (1 − ρ) · (T − I) ([protocol-rationale.md](protocol-rationale.md#one-leader-with-a-shared-view-of-the-store)). At T = 5I: R = 1.5I tolerates ρ up to 45 %, R = T/2 = 2.5I up to 23 %, R = 3.5I up to 6.7 %; and a leader cut off from its store keeps acting for up to R.',
  '',
  '**The default stays R = T/2**: it is what the documented clock assumption (rates agreeing within about 20 %, [protocol.md](protocol.md#what-roster-guarantees)) allows, and it keeps the leader\'s work through pauses up to T/2 − I (150 ms at I = 100 ms, T = 500 ms; 1.5 s at the defaults I = 1 s, T = 5 s). A deployment whose clocks agree closely and whose leader work is expensive to restart can raise it toward T − I (`--renew-deadline`, `renewDeadlineMs`); one that trusts its clocks less should lower it.',
  '',
];

/** The whole page. */
export function renderMarkdown(result: BenchResult): string {
  const m = result.machine;
  const lines: string[] = [
    '# Benchmarks',
    '',
    `Generated by \`pnpm bench${result.mode === 'quick' ? ' --quick' : ''}\` (${result.mode} mode) on ${result.startedAt.slice(0, 16).replace('T', ' ')} UTC, in ${num((result.durationS ?? 0) / 60, 1)} minutes. Every figure below comes from real processes on one machine: a real \`redis-server\`, Debian's \`etcd\`, and each node a child process that the bench kills, pauses and stops with signals. The bench writes the full record as JSON under \`packages/bench/results/\` (not committed); this page is regenerated from it. See [packages/bench](../packages/bench/README.md) for how it works and how to run parts of it.`,
    '',
    '## The machine',
    '',
    '| | |',
    '|---|---|',
    `| CPU | ${m.cpuModel}, ${m.cpuCount} cores |`,
    `| memory | ${m.memoryGiB} GiB |`,
    `| OS | ${m.os} |`,
    `| Node.js | ${m.node} |`,
    `| redis-server | ${m.redis} |`,
    `| etcd | ${m.etcd} |`,
    ...(m.postgres === undefined ? [] : [`| PostgreSQL | ${m.postgres} |`]),
    ...(m.mariadb === undefined ? [] : [`| MariaDB | ${m.mariadb} |`]),
    ...(m.nats === undefined ? [] : [`| nats-server | ${m.nats} |`]),
    `| load average (1 min) | ${m.loadStart} at the start, ${m.loadEnd ?? '—'} at the end |`,
    '',
    'Timings on a shared 2-core machine are noisy: a load average above the core count means the nodes, the store and the bench compete for the CPU, which lengthens every figure and shortens tolerances.',
    '',
  ];
  if (result.systems.length > 0) {
    lines.push(
      '## Leader election: crash failover against stall tolerance',
      '',
      `${result.nodes} nodes per system, each a process driven through one contract (one JSON line per leadership change on stdout, a graceful resign on SIGTERM). Roster runs as the real \`roster node --json\` CLI; the peers run the npm package \`redis-leader\` on the same redis-server, and etcd's Election through the \`etcd3\` client against a single local etcd.`,
      '',
      '- **crash failover**: SIGKILL of the leader, until another node reports that it leads.',
      '- **stall tolerance**: the leader is paused with SIGSTOP for D ms, then resumed with SIGCONT, on a grid of D; the tolerance is the longest D for which no try (nor any try at a shorter D) let another node take over.',
      '- **disruption-free pause**: on the same grid and tries, the longest D for which no try (nor any try at a shorter D) changed any node\'s reported role: nobody else led, the paused leader never reported that it stopped leading (for Roster, a lapsed lease, shown as `candidate`, aborts its `whileLeader` work), and no follower stood. This is the pause the leader\'s work survives; the stall tolerance only counts takeovers.',
      '- **failover ÷ tolerance**: how much longer a crash takes to repair than the pauses the system rides out. No failure detector can go below 1.0.',
      '- **graceful resign**: SIGTERM of the leader, until another node reports that it leads.',
      '',
      ...leadershipTable(result),
      '',
      `![crash failover against stall tolerance](${PLOT_FILES.leadership})`,
      '',
      'Pauses tried (D in ms: tries in which another node took over / tries; a "step-down" is a try where the paused leader gave up leadership but nobody else took it; "stood" a try where only a follower stood for election):',
      '',
      ...result.systems.filter((r) => r.stall).map((r) => `- ${r.label}, grid ${r.stall!.gridMs} ms × ${r.stall!.triesPerStep}: ${stallSteps(r)}`),
      '',
      ...RENEW_DEADLINE,
    );
    const errors = result.systems.filter((r) => r.error);
    if (errors.length) lines.push('Failed part-way:', '', ...errors.map((r) => `- ${r.label}: ${r.error}`), '');
    const members = result.systems.filter((r) => r.membership);
    if (members.length > 0) {
      lines.push(
        '## Join and leave propagation (Roster)',
        '',
        'Join: a sixth node starts; the time from its first line (the store reached) until every other node lists it (and from its process spawn, which adds Node.js start-up). Leave: a follower gets SIGTERM; the time until every other node has dropped it.',
        '',
        '| system | join ms, median / p90 | join from spawn ms, median / p90 | leave ms, median / p90 |',
        '|---|---|---|---|',
        ...members.map((r) => `| ${r.label} | ${medianP90(r.membership!.join)} | ${medianP90(r.membership!.joinFromSpawn)} | ${medianP90(r.membership!.leave)} |`),
        '',
      );
    }
  }
  if (result.scale.length > 0) {
    lines.push(
      '## Scale',
      '',
      'The leader runs alone in its own process and is elected first; the three members that stand first when it dies (the first after it in its list) run in a second process, at the same priority; the other members are `createNode()` instances, up to 250 to a worker process (1,000 for the largest group), each worker sharing one `RedisKV` and running at niceness 10 (they stand for many hosts: on one, they must not starve the leader and the store). Cost is counted by Redis itself (`INFO commandstats`, `total_net_output_bytes` and `total_net_input_bytes`, summed over the servers) over a steady window of at least 10 intervals, then divided by members and intervals. Leader CPU is `process.cpuUsage()` of the leader process over the same window. Failover: SIGKILL of the leader process, until a member reports leading; "all follow" is when the last surviving member began to follow it, by the time of that member\'s own `leader` update (each worker keeps the time of every member\'s last such update), not by the workers\' report period.',
      '',
      ...scaleTable(result.scale),
      '',
      `![cost per member against the number of members](${PLOT_FILES.scale})`,
      '',
      'Commands per member per interval, by command:',
      '',
      ...commandMix(result.scale),
      '',
      'Where the time goes after a failover at scale, and what bounds "all follow" on a machine of 2 cores, from runs made beside this page: [scale.md](scale.md).',
      '',
    );
  }
  lines.push('## Method notes', '', ...result.notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}

/** The scale table's name of a store. */
function storeLabel(store: ScaleResult['store']): string {
  return store === 'redis' ? 'redis-server' : store === 'cluster' ? 'Redis Cluster (3 masters)' : store === 'etcd' ? 'etcd (1 member, EtcdKV)' : store === 'postgres' ? 'PostgreSQL (PostgresKV)' : store === 'mariadb' ? 'MariaDB (MySQLKV)' : store === 'nats' ? 'NATS JetStream (1 server, NatsKV)' : 'Redis Sentinel (a master, 2 replicas)';
}

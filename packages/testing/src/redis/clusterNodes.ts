/**
 * Reading `CLUSTER NODES`, for {@link LocalRedisCluster}'s waits: who is master of what, as one
 * server sees it. Internal to the testing entry.
 */

/** One line of `CLUSTER NODES`: one node of the cluster as the server asked sees it. */
export interface ClusterNodeLine {
  /** The node id (40 hex characters). */
  readonly id: string;
  /** The client port, from `ip:port@busport`. */
  readonly port: number;
  /** `myself`, `master`, `slave`, `fail?`, `fail`, `handshake`, `noaddr`, `nofailover`, … */
  readonly flags: ReadonlySet<string>;
  /** The id of its master when it is a replica. */
  readonly masterId: string | undefined;
  /** Whether the server asked has a live bus link to it (`myself` is always connected). */
  readonly connected: boolean;
  /** The slot ranges it serves, inclusive. */
  readonly slots: readonly (readonly [number, number])[];
  /** Whether a slot of it is being migrated or imported (`[slot->-id]`, `[slot-<-id]`). */
  readonly migrating: boolean;
}

/** Parses the reply of `CLUSTER NODES`. */
export function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [id, address, flags, master, , , , link, ...slots] = line.split(' ');
      const port = Number(/:(\d+)@/.exec(address ?? '')?.[1]);
      return {
        id: id!,
        port,
        flags: new Set(flags!.split(',')),
        masterId: master === '-' ? undefined : master,
        connected: link === 'connected',
        slots: slots.filter((slot) => !slot.startsWith('[')).map((slot) => {
          const [from, to = from] = slot.split('-').map(Number);
          return [from!, to!] as const;
        }),
        migrating: slots.some((slot) => slot.startsWith('[')),
      };
    });
}

/** Flags that say a node is not (yet, or no longer) a healthy member of the cluster. */
const UNHEALTHY = ['fail', 'fail?', 'handshake', 'noaddr'];

/** True when `line` shows a node the server asked considers reachable and settled. */
export function isHealthy(line: ClusterNodeLine): boolean {
  return line.connected && !UNHEALTHY.some((flag) => line.flags.has(flag));
}

/** The port of the master serving `slot`, in `lines`; `undefined` when none does. */
export function slotOwner(lines: readonly ClusterNodeLine[], slot: number): number | undefined {
  return lines.find((line) => line.flags.has('master') && line.slots.some(([from, to]) => slot >= from && slot <= to))?.port;
}

/**
 * The topology `lines` show of the nodes on `ports`, as one comparable string: for each node, in
 * port order, `port master slots` or `port replica-of:<master port>`. Two servers agree on these
 * nodes when their strings are equal.
 */
export function describeTopology(lines: readonly ClusterNodeLine[], ports: ReadonlySet<number>): string {
  const portOf = new Map(lines.map((line) => [line.id, line.port]));
  return lines
    .filter((line) => ports.has(line.port))
    .sort((a, b) => a.port - b.port)
    .map((line) =>
      line.flags.has('master')
        ? `${line.port} master ${line.slots.map(([from, to]) => (from === to ? `${from}` : `${from}-${to}`)).join(',')}`
        : `${line.port} replica-of:${line.masterId === undefined ? '?' : (portOf.get(line.masterId) ?? '?')}`,
    )
    .join('; ');
}

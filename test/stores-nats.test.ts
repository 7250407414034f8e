import { LocalNats } from '@roster/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killAll as killClusterTests } from './support/clusterTest.js';
import { ElectionGroup } from './support/electionScenario.js';
import { killAllNodes, until } from './support/rosterNode.js';
import { clusterTestSharesThreads, primaryActsOnStoreClock } from './support/storeCommands.js';

/**
 * Roster on a real nats-server with JetStream (Debian's nats-server 2.9, through NatsKV and the
 * official v3 clients): five `roster node --json` processes at I = 100 ms, T = 500 ms elect one
 * leader, see a join and a leave, fail over after a SIGKILL of the leader, hand over on resign;
 * `roster primary` runs on the JetStream clock, and `cluster-test` shares threads. Bounds are the
 * protocol's plus slack for a loaded 2-core machine; the figures are printed.
 */
/** A nats-server of one's own, or LocalNats' default (Debian's /usr/sbin/nats-server). */
const NATS = process.env.ROSTER_NATS_BINARY;
const I = 100;
const T = 500;
const SLACK = 1000;

let nats: LocalNats;
let buckets = 0;
beforeAll(async () => {
  nats = await LocalNats.start({ ...(NATS && { binary: NATS }) });
});
afterEach(async () => {
  await killAllNodes();
  await killClusterTests();
});
afterAll(async () => {
  await killAllNodes();
  await killClusterTests();
  await nats?.stop();
});

/** A group of its own, in a bucket of its own. */
const newGroup = (): ElectionGroup => new ElectionGroup({ url: nats.url(`stores-${++buckets}`), group: 'nats', intervalMs: I, timeoutMs: T, slackMs: SLACK });

describe('roster node on nats-server (JetStream key-value)', () => {
  it('five processes elect one leader, see a join and a leave, fail over within T + 2I of a SIGKILL, and hand over on resign', { timeout: 30_000 }, async () => {
    const g = newGroup();
    for (const id of ['a', 'b', 'c', 'd', 'e']) g.start(id);
    const elected = await g.waitSettled();

    // A join: every live process lists the newcomer.
    const join = await g.join('f', 'settled');
    const f = g.nodes.at(-1)!;

    // A leave: a follower stopped with SIGTERM leaves the members of every other.
    const follower = g.live.find((p) => p.role !== 'leader' && p !== f)!;
    const leftId = follower.events[0]!.id;
    follower.signal('SIGTERM');
    expect((await follower.exited).code).toBe(0);
    g.gone.add(follower);
    const leaveAt = Date.now();
    await until(() => g.settled() && g.live.every((p) => !p.members.includes(leftId)), 20 * T, () => g.describe());
    const leave = Date.now() - leaveAt;

    // The leader SIGKILLed: another leads within T + 2I.
    const failover = await g.failOverAfterKill();

    // resign() (SIGUSR2): another leads at once, and the resigned process stays, following it.
    const resign = await g.handOverOnResign();
    console.info(`nats, 5 processes at I=${I}/T=${T}: elected and settled ${Math.round(elected)} ms, join seen by all ${join} ms, leave ${leave} ms, failover after SIGKILL ${failover} ms (T + 2I = ${T + 2 * I}), hand-over on resign ${resign} ms`);
  });

  it('roster primary: a contender acts as primary on the JetStream clock, and `primary get` reads it', { timeout: 20_000 }, async () => {
    // The JetStream timestamps are this machine's clock here: the claim is recent.
    const storeNow = async (): Promise<number> => Date.now();
    await primaryActsOnStoreClock({ url: nats.url(`primary-${++buckets}`), group: 'natsprimary', intervalMs: I, waitMs: 10_000, storeNow });
  });

  it('cluster-test -r nats://…: two instances of 3 and 2 threads share a total of 5; the one left has 3 of 3', { timeout: 20_000 }, async () => {
    await clusterTestSharesThreads({ url: nats.url(`cluster-test-${++buckets}`), key: 'natsclustertest', intervalMs: I, waitMs: 10_000 });
  });
});

/**
 * What a cut, a frozen or a down store costs whole nodes in connections (docs/faults.md,
 * "Connections under a cut or a frozen store", "Whole nodes"): per store (etcd, PostgreSQL), two
 * `roster node --json` processes at I = 100 ms, T = 500 ms, each through its own TCP proxy that
 * counts the connections it accepts; 3 s at rest, then 3 s of each fault with 3 s between. Prints
 * the connections each node opened in each window; asserts nothing.
 */
import { LocalEtcd, LocalPostgres } from '@roster/testing';
import { it } from 'vitest';
import { killAllNodes, startRoster } from './support/rosterNode.js';
import { startTcpProxy, type TcpProxy } from './support/tcpProxy.js';

const ETCD = process.env.ROSTER_ETCD_BINARY ?? '/usr/bin/etcd';
const WINDOW_MS = 3000;

interface Store {
  readonly name: string;
  readonly port: number;
  url(port: number): string;
  freeze(): void;
  thaw(): void;
}

it('connections opened by two nodes through a cut, a frozen and a down store', { timeout: 300_000 }, async () => {
  const etcd = await LocalEtcd.start({ binary: ETCD });
  const postgres = await LocalPostgres.start();
  const member = etcd.members[0]!;
  const stores: Store[] = [
    { name: 'etcd', port: member.port, url: (port) => `etcd://127.0.0.1:${port}`, freeze: () => etcd.pause(member), thaw: () => etcd.resume(member) },
    { name: 'postgres', port: postgres.port, url: (port) => withPort(postgres.url, port), freeze: () => postgres.pause(), thaw: () => postgres.resume() },
  ];
  const proxies: TcpProxy[] = [];
  try {
    for (const store of stores) {
      const mine = [await startTcpProxy(store.port), await startTcpProxy(store.port)];
      proxies.push(...mine);
      const nodes = mine.map((proxy, i) =>
        startRoster('node', '--json', '--store', store.url(proxy.port), '--group', 'connections', '--env', store.name, '--id', `n${i}`, '--interval', '100', '--timeout', '500'),
      );
      while (!nodes.every((node) => node.members.length === nodes.length)) await sleep(100);
      await sleep(1000);
      const window = async (what: string, begin: () => void, end: () => void): Promise<void> => {
        const before = mine.map((proxy) => proxy.accepted);
        begin();
        await sleep(WINDOW_MS);
        const opened = mine.map((proxy, i) => proxy.accepted - before[i]!);
        end();
        process.stdout.write(`${store.name} ${what}: ${opened.map((n, i) => `${nodes[i]!.role} ${n}`).join(', ')} in ${WINDOW_MS / 1000} s\n`);
        await sleep(WINDOW_MS);
      };
      await window('at rest', () => undefined, () => undefined);
      await window('cut', () => mine.forEach((proxy) => proxy.setCut(true)), () => mine.forEach((proxy) => proxy.setCut(false)));
      await window('frozen', () => store.freeze(), () => store.thaw());
      await window('down', () => mine.forEach((proxy) => (proxy.dropAll(), proxy.setRefusing(true))), () => mine.forEach((proxy) => proxy.setRefusing(false)));
      await killAllNodes();
    }
  } finally {
    await killAllNodes();
    for (const proxy of proxies) await proxy.close();
    await etcd.stop();
    await postgres.destroy();
  }
});

function withPort(url: string, port: number): string {
  const parsed = new URL(url);
  parsed.port = String(port);
  return parsed.toString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

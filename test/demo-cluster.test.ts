import { afterEach, describe, expect, it } from 'vitest';
import { failovers, processesMarked, startDemo, stopDemos } from './support/demo.js';
import { until } from './support/rosterNode.js';

afterEach(stopDemos);

/** The lines of `output` from the first one matching `from` on. */
function after(output: string, from: RegExp): string[] {
  const lines = output.split('\n');
  const i = lines.findIndex((line) => from.test(line));
  return i < 0 ? [] : lines.slice(i);
}

describe('the demo in cluster mode', () => {
  it('--cluster: on a local 3-master Redis Cluster, the leader key’s master is SIGKILLed, the leader’s broadcast moves to another nonce under the same leader, nodes still join and fail over, the master is restarted, nothing is left behind', async () => {
    const run = startDemo('--cluster', '--duration', '18', '--kill-every', '4');
    // The web page's JSON, polled while the demo runs: which leader broadcasts at which nonce.
    const seen = new Set<string>();
    let ended = false;
    const polling = (async () => {
      while (!ended) {
        const url = /watch every node live at (http:\/\/\S+)/.exec(run.output)?.[1];
        if (url) {
          try {
            const snapshot = (await (await fetch(new URL('cluster.json', url))).json()) as { leader: { id: string; nonce: number | null } | null };
            if (snapshot.leader) seen.add(`${snapshot.leader.id}@${snapshot.leader.nonce}`);
          } catch {
            // Not serving yet, or any more.
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const code = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 150_000))]);
    ended = true;
    await polling;
    expect(code, run.output).toBe(0);
    const out = run.output;
    expect(out).toMatch(/roster demo: store: a Redis Cluster of 3 masters \(.*redis-server\) at 127\.0\.0\.1:\d+,127\.0\.0\.1:\d+,127\.0\.0\.1:\d+/);

    const kill = /killed the Redis master (127\.0\.0\.1:\d+) \(pid \d+\) with SIGKILL: it serves "roster\/demo\/demo\/leader (\d+)", where leader (n\d+) broadcasts/.exec(out);
    expect(kill, out).not.toBeNull();
    const [, master, nonce, leader] = kill!;
    // The same leader goes on at another nonce: no election for the shard loss.
    const moved = new RegExp(`${leader} still leads; its broadcast moved from nonce ${nonce} to nonce (\\d+)`).exec(out);
    expect(moved, out).not.toBeNull();
    expect(moved![1]).not.toBe(nonce);
    // The web page showed the same leader at both nonces.
    expect([...seen], out).toEqual(expect.arrayContaining([`${leader}@${nonce}`, `${leader}@${moved![1]}`]));

    // The group carries on while the master is down or after: a node started after the kill is
    // admitted (seen as a member), and every leader kill is followed by a measured failover.
    const later = after(out, /killed the Redis master/);
    const started = later.map((line) => /started (n\d+)/.exec(line)?.[1]).find((id) => id !== undefined);
    expect(started, out).toBeDefined();
    expect(later.some((line) => new RegExp(`sees v\\d+ \\[[^\\]]*\\b${started}\\b`).test(line)), out).toBe(true);
    expect(later.some((line) => /failover \d+\.\d\d s .*every survivor follows n\d+/.test(line)), out).toBe(true);
    expect(out).toContain(`restarted the Redis master ${master}`);
    const f = failovers(out);
    expect(f.measured, out).toBe(f.kills);
    expect(f.max!).toBeLessThan(15);
    expect(out).not.toMatch(/exited unexpectedly|shard fault:/);
    await until(() => processesMarked(run.mark).length === 0, 5000, () => `left behind: ${processesMarked(run.mark).join(', ')}`);
  });
});

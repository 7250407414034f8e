import { afterEach, describe, expect, it } from 'vitest';
import { failovers, processesMarked, startDemo, stopDemos } from './support/demo.js';
import { until } from './support/rosterNode.js';

afterEach(stopDemos);


describe('the demo', () => {
  it('--nodes 3 --duration 5 --kill-every 2: kills the leader, measures at least one failover, leaves no process behind', async () => {
    const run = startDemo('--nodes', '3', '--duration', '5', '--kill-every', '2');
    const code = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 60_000))]);
    expect(code, run.output).toBe(0);

    expect(run.output).toMatch(/roster demo: store: (redis-server .* at redis:\/\/127\.0\.0\.1:\d+|in-process MemoryKV)/);
    expect(run.output).toMatch(/killed the leader n\d+ \(pid \d+\) with SIGKILL/);
    expect(run.output).toMatch(/failover \d+\.\d\d s \(timeout 1\.00 s\): every survivor follows n\d+/);
    expect(run.output).toMatch(/elections: [1-9]\d*/);
    expect(run.output).toMatch(/^ {2}two nodes reporting leader at once: never$/m);
    const f = failovers(run.output);
    expect(f.measured, run.output).toBeGreaterThanOrEqual(1);
    expect(f.min!).toBeLessThanOrEqual(f.median!);
    expect(f.median!).toBeLessThanOrEqual(f.max!);
    expect(f.max!).toBeLessThan(15);
    // Only the summary follows the nodes' `stopped` lines: nothing is printed after the end.
    expect(run.output.trimEnd().split('\n').at(-1)).toMatch(/^Next: /);
    await until(() => processesMarked(run.mark).length === 0, 5000, () => `left behind: ${processesMarked(run.mark).join(', ')}`);
  });

  it('--store-kind memory: the nodes share the main process’s store over IPC and fail over as on Redis', async () => {
    const run = startDemo('--nodes', '3', '--duration', '5', '--kill-every', '2', '--store-kind', 'memory');
    const code = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 60_000))]);
    expect(code, run.output).toBe(0);
    expect(run.output).toMatch(/store: in-process MemoryKV, shared with the workers over IPC/);
    expect(failovers(run.output).measured, run.output).toBeGreaterThanOrEqual(1);
    await until(() => processesMarked(run.mark).length === 0, 5000, () => `left behind: ${processesMarked(run.mark).join(', ')}`);
  });

  it('Ctrl-C (SIGINT to the process group) ends it early: every node stops gracefully, the summary is printed, exit 0, nothing left behind', async () => {
    const run = startDemo('--nodes', '3', '--duration', '120', '--kill-every', '0');
    await until(() => run.output.includes('every node is up') && /n\d\s+follows/.test(run.output), 30_000, () => run.output);
    const marked = processesMarked(run.mark);
    expect(marked.length, 'the demo, its 3 workers and its store').toBeGreaterThanOrEqual(4);
    // One URL shows every node, live.
    const url = /roster demo: watch every node live at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(run.output)?.[1];
    expect(url, run.output).toBeDefined();
    const page = await (await fetch(url!)).text();
    expect(page).toContain('new EventSource("/events")');
    type Cluster = { phase: string; leader: { id: string } | null; nodes: { id: string; life: string; follows: string | null }[] };
    let cluster: Cluster | undefined;
    const agreed = (c: Cluster | undefined): boolean => c?.leader != null && c.nodes.every((n) => n.life === 'running' && n.follows === c.leader!.id);
    const poll = setInterval(() => void fetch(`${url}cluster.json`).then(async (r) => (cluster = (await r.json()) as Cluster), () => undefined), 50);
    try {
      await until(() => agreed(cluster), 15_000, () => JSON.stringify(cluster));
    } finally {
      clearInterval(poll);
    }
    expect(cluster!.phase).toBe('running');
    expect(cluster!.nodes.map((n) => n.id).sort()).toEqual(['n1', 'n2', 'n3']);
    const events = await fetch(`${url}events`);
    expect(events.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const first = await events.body!.pipeThrough(new TextDecoderStream()).getReader().read();
    expect(first.value).toMatch(/^event: cluster\ndata: \{/);
    process.kill(-run.child.pid!, 'SIGINT'); // the whole group, as a terminal's Ctrl-C
    const code = await Promise.race([run.exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    expect(code, run.output).toBe(0);
    expect(run.output).toMatch(/SIGINT: stopping every node/);
    expect(run.output.match(/n\d\s+stopped/g)?.length, run.output).toBe(3);
    expect(run.output).not.toMatch(/exited unexpectedly/);
    expect(failovers(run.output)).toEqual({ measured: 0, kills: 0 });
    await until(() => processesMarked(run.mark).length === 0, 5000, () => `left behind: ${processesMarked(run.mark).join(', ')}`);
  });

  it('bad arguments exit 2 with one line', async () => {
    const run = startDemo('--nodes', 'many');
    expect(await run.exited).toBe(2);
    expect(run.output.trim()).toBe('pnpm demo: --nodes must be an integer from 1 to 50, got "many"');
  });
});

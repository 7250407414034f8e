import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from './support/browser.js';
import { startRedis, type RedisTestServer } from './support/redis.js';
import { killAllNodes, startRoster, until, type RosterNodeProcess, statusUrl } from './support/rosterNode.js';

/**
 * The live status page in a real browser: Chromium (through playwright-core) watches a follower's
 * dashboard (its store round trip, its PONG round trip) while the leader's process is SIGKILLed,
 * and sees the new leader without a reload.
 */
const I = 200;
const T = 1000;
const WAIT = 30_000;

let redis: RedisTestServer;
let browser: Browser | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await browser?.close();
  await killAllNodes();
  await redis?.stop();
});
afterEach(async () => {
  await killAllNodes();
});

function startNode(key: string, id: string): RosterNodeProcess {
  return startRoster('node', '--store', redis.url, '--group', key, '--env', 'test', '--id', id, '--interval', String(I), '--timeout', String(T), '--json', '--status-port', '0');
}

describe('the live dashboard in Chromium', () => {
  it('shows the leader, then the new leader after the leader process is killed, without reloading', async () => {
    // In the test, not in a hook: a browser that cannot start fails this test instead of skipping it.
    browser = await launchChromium();
    const key = `web${Math.random().toString(36).slice(2, 8)}`;
    const nodes = ['a', 'b', 'c'].map((id) => startNode(key, id));
    const urls = await Promise.all(nodes.map((p) => statusUrl(p, WAIT)));
    await until(
      () => nodes.every((n) => n.members.length === 3 && n.leader != null && n.leader.id === nodes[0]!.leader?.id),
      WAIT,
      () => nodes.map((n) => n.describe()).join('\n'),
    );
    const oldLeader = nodes[0]!.leader!;
    const watched = nodes.findIndex((n) => n.role === 'follower');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } }); // a phone
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(urls[watched]!);
    await page.locator('#link', { hasText: 'live' }).waitFor({ timeout: WAIT });
    await expect.poll(() => page.locator('#leader').textContent(), { timeout: WAIT }).toBe(oldLeader.id);
    expect(await page.locator('#leader-detail').textContent()).toContain(`fencing token ${oldLeader.token}`);
    expect(await page.locator('#members tr').count()).toBe(3);
    expect(await page.locator('#role').textContent()).toBe('follower');
    // The latency shown is the store round trip; the members' column is the PONG round trip, named so.
    expect(await page.locator('#pong-head').textContent()).toBe('PONG round trip');
    await expect.poll(() => page.locator('#store-rtt').textContent(), { timeout: WAIT }).toMatch(/^round trip \d+\.\d ms$/);
    const ownRow = page.locator('#members tr', { hasText: 'this node' });
    await expect.poll(() => ownRow.locator('td').nth(2).textContent(), { timeout: WAIT }).toMatch(/^\d+\.\d ms( \(\d+ missed\))?$/);

    nodes.find((n) => n.role === 'leader')!.signal('SIGKILL');
    // The survivors elect a new leader within T + 2I; the page follows over Server-Sent Events.
    await expect
      .poll(() => page.locator('#leader').textContent(), { timeout: WAIT })
      .toMatch(new RegExp(`^(?!${oldLeader.id}\\b)[abc]( \\(this node\\))?$`));
    const newLeader = (await page.locator('#leader').textContent())!.split(' ')[0]!;
    expect(['a', 'b', 'c'].filter((id) => id !== oldLeader.id)).toContain(newLeader);
    await expect.poll(() => page.locator('#members tr').count(), { timeout: WAIT }).toBe(2);
    const token = BigInt(/fencing token (\d+)/.exec((await page.locator('#leader-detail').textContent())!)![1]!);
    expect(token).toBeGreaterThan(oldLeader.token);
    expect(await page.locator('#log').textContent()).toContain(`leader ${newLeader}`);
    expect(loads).toEqual([urls[watched]]);
    expect(errors).toEqual([]);
    if (process.env.ROSTER_SCREENSHOT) await page.screenshot({ path: process.env.ROSTER_SCREENSHOT, fullPage: true });
    await page.close();
  });
});

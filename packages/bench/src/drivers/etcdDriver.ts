/**
 * The driver of etcd's Election through the npm client `etcd3` (a port of the Go client's
 * `concurrency.Election`), under the contract of `driverIO.ts`.
 * `--url http://… --key K --ttl SECONDS --wait MS`: a campaign on a lease of `ttl` seconds; when a
 * campaign fails (its lease lost), a new one starts after `wait` ms.
 */
import { Etcd3, type Campaign } from 'etcd3';
import { driverArgs, emit, onStop } from './driverIO.js';

const args = driverArgs(['url', 'key', 'ttl', 'wait']);
const client = new Etcd3({ hosts: args.url! });
const election = client.election(args.key!, Number(args.ttl));
const id = `${process.pid}`;
let campaign: Campaign | undefined;
let leading = false;
let stopping = false;

function campaignAgain(): void {
  if (stopping) return;
  const current = election.campaign(id);
  campaign = current;
  current.on('elected', () => {
    if (campaign !== current || leading) return;
    leading = true;
    emit('leader');
  });
  current.on('error', (error: Error) => {
    if (campaign !== current) return;
    process.stderr.write(`etcd campaign: ${error.message}\n`);
    if (leading) {
      leading = false;
      emit('follower');
    }
    campaign = undefined;
    void current.resign().catch(() => {});
    setTimeout(campaignAgain, Number(args.wait));
  });
}

await client.get('bench-ping').string();
emit('ready');
campaignAgain();

onStop(async () => {
  stopping = true;
  const current = campaign;
  campaign = undefined;
  if (current) await current.resign();
  if (leading) {
    leading = false;
    emit('follower');
  }
  client.close();
});

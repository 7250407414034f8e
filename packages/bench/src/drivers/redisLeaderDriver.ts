/**
 * The driver of the npm package `redis-leader`, under the contract of `driverIO.ts`.
 * `--url redis://… --key K --ttl MS --wait MS`.
 */
import { Redis } from 'ioredis';
import Leader from 'redis-leader';
import { driverArgs, emit, onStop } from './driverIO.js';

const args = driverArgs(['url', 'key', 'ttl', 'wait']);
const redis = new Redis(args.url!, { maxRetriesPerRequest: 1 });
redis.on('error', (error: Error) => process.stderr.write(`redis: ${error.message}\n`));
const leader = new Leader(redis, { key: args.key!, ttl: Number(args.ttl), wait: Number(args.wait) });
let leading = false;
leader.on('elected', () => {
  leading = true;
  emit('leader');
});
leader.on('revoked', () => {
  if (!leading) return;
  leading = false;
  emit('follower');
});
leader.on('error', (error: Error) => process.stderr.write(`redis-leader: ${error.message}\n`));

await redis.ping();
emit('ready');
leader.elect();

onStop(async () => {
  // stop() deletes the key when this process leads; there is no callback, so wait for `revoked`.
  const revoked = leading ? new Promise<void>((resolve) => leader.once('revoked', () => resolve())) : Promise.resolve();
  leader.stop();
  await Promise.race([revoked, new Promise((resolve) => setTimeout(resolve, 1000))]);
  await redis.quit();
});

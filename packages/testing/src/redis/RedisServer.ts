import { LOOPBACK_HOST } from '../process/loopback.js';
import type { RedisProcess } from './RedisProcess.js';

/**
 * What a local deployment shows of one of its `redis-server` processes (a cluster's shard, a
 * Sentinel deployment's master or replica), with the process behind it. Internal to
 * `LocalRedisCluster` and `LocalRedisSentinel`.
 */
export class RedisServer {
  readonly host = LOOPBACK_HOST;
  readonly address: string;

  constructor(readonly process: RedisProcess) {
    this.address = `${LOOPBACK_HOST}:${process.port}`;
  }

  get port(): number {
    return this.process.port;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return this.process.running;
  }
}

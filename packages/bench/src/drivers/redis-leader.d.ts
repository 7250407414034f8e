declare module 'redis-leader' {
  import { EventEmitter } from 'node:events';
  /** redis-leader 0.1: SET NX PX to win, PEXPIRE every ttl/2 to renew, a retry every `wait` ms. */
  export default class Leader extends EventEmitter {
    constructor(redis: unknown, options?: { ttl?: number; wait?: number; key?: string });
    readonly id: string;
    elect(): void;
    stop(): void;
    isLeader(done: (error: Error | null, isLeader?: boolean) => void): void;
  }
}

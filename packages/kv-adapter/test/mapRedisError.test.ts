import { describe, expect, it } from 'vitest';
import { KVClosedError, KeyUnavailableError, KVRejectedError, StoreUnavailableError, ValueTooLargeError } from '../src/index.js';
import { mapRedisError, type ErrorContext } from '../src/redis/mapError.js';

function reply(message: string): Error {
  const error = new Error(message);
  error.name = 'ReplyError';
  return error;
}

const single: ErrorContext = { backend: 'RedisKV', operation: 'get', key: 'k', closed: false, shardScoped: false };
const shard: ErrorContext = { ...single, shardScoped: true };

describe('mapRedisError', () => {
  it('maps error replies about the data to KVRejectedError, keeping the reply as cause', () => {
    const cause = reply('WRONGTYPE Operation against a key holding the wrong kind of value');
    const error = mapRedisError(cause, shard);
    expect(error).toBeInstanceOf(KVRejectedError);
    expect((error as Error).cause).toBe(cause);
    expect(mapRedisError(reply('OOM command not allowed'), single)).toBeInstanceOf(KVRejectedError);
  });

  it('maps availability failures to KeyUnavailableError on a cluster shard, StoreUnavailableError otherwise', () => {
    for (const cause of [
      reply('CLUSTERDOWN The cluster is down'),
      reply('LOADING Redis is loading the dataset in memory'),
      reply("READONLY You can't write against a read only replica."),
      reply('NOREPLICAS Not enough good replicas to write.'),
      reply("ERR Error running script (call to f_0123): @user_script:1: READONLY You can't write against a read only replica. script: 0123"),
      new Error('Connection is closed.'),
      new Error('Command timed out'),
      new Error('Too many Cluster redirections. Last error: Error: Connection is closed.'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }),
    ]) {
      expect(mapRedisError(cause, shard)).toMatchObject({ code: 'KV_KEY_UNAVAILABLE', key: 'k', cause });
      expect(mapRedisError(cause, single)).toBeInstanceOf(StoreUnavailableError);
      expect(mapRedisError(cause, { ...shard, key: undefined })).toBeInstanceOf(StoreUnavailableError);
    }
    expect(mapRedisError(new Error('Connection is closed.'), shard)).toBeInstanceOf(KeyUnavailableError);
  });

  it('reports KVClosedError once closed, and passes Roster and programming errors through', () => {
    expect(mapRedisError(new Error('Connection is closed.'), { ...single, closed: true })).toBeInstanceOf(KVClosedError);
    const tooLarge = new ValueTooLargeError('k', 10, 5);
    expect(mapRedisError(tooLarge, shard)).toBe(tooLarge);
    const bug = new TypeError('x is undefined');
    expect(mapRedisError(bug, shard)).toBe(bug);
  });
});

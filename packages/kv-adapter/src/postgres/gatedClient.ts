import type { Client } from 'pg';
import type { ConnectBackOff } from '../backend/ConnectBackOff.js';

/**
 * pg's `Client` class, for the pool's `Client` option, whose connections open only when
 * `backOff` allows: while the server does not answer, a connection that may not open yet fails at
 * once (the operation that wanted it fails as the store unavailable) instead of reaching the
 * server. Every connection the pool opens, for an operation or for one still waiting in its queue,
 * goes through here. A connection that fails to open is reported to `backOff` as a failure; one
 * that opens is not an answer (on a slow network a connection may open and every statement on it
 * still time out): only an operation done in time ends the back-off.
 */
export function gatedClient(Base: typeof Client, backOff: ConnectBackOff): typeof Client {
  let lastFailure = '';
  return class GatedClient extends Base {
    // pg's overloads: `connect()` → a promise, `connect(callback)` → the callback.
    override connect(callback?: (error: any, client?: any) => void): any {
      if (!backOff.tryOpen()) {
        const error = new Error(`no new connection for ${Math.round(backOff.waitMs)} ms: the server did not answer lately${lastFailure && ` (${lastFailure})`}`);
        if (callback === undefined) return Promise.reject(error);
        process.nextTick(callback, error);
        return undefined;
      }
      const report = (error: Error | null | undefined): void => {
        if (!error) return;
        lastFailure = error.message;
        backOff.failed();
      };
      if (callback === undefined) {
        return super.connect().then(
          (client) => {
            report(null);
            return client;
          },
          (error: Error) => {
            report(error);
            throw error;
          },
        );
      }
      super.connect((error: Error | null, client?: Client) => {
        report(error);
        callback(error, client);
      });
      return undefined;
    }
  };
}

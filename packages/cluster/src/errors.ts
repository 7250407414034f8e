import { RosterError } from '@roster/kv-adapter';

/**
 * A cluster handle was used in a state that does not allow it: `join()` after `leave()` or
 * `destroy()`, or a `join()` still waiting when the handle left (code `CLUSTER_LEFT`).
 */
export class ClusterLeftError extends RosterError {
  constructor(message: string) {
    super('CLUSTER_LEFT', `cluster: ${message}`);
  }
  /** True when `error` is a {@link ClusterLeftError} from any copy of this package. */
  static override is(error: unknown): error is ClusterLeftError {
    return RosterError.is(error, 'CLUSTER_LEFT');
  }
}

/**
 * The store's process, for a run whose tool started the store itself (tests, `pnpm nemesis`):
 * what the `store-kill`, `store-freeze` and `store-restart` faults do. `roster verify --store URL`
 * has none (it never touches a user's server) and runs no store fault.
 */
export interface StoreControl {
  /** Kills the store (SIGKILL), as a crash. */
  kill(): Promise<void>;
  /** Starts the store again after {@link kill}, resolving once it answers. */
  start(): Promise<void>;
  /** Freezes the store (SIGSTOP): connections stay open, nothing answers. */
  freeze(): void | Promise<void>;
  /** Undoes {@link freeze}. */
  thaw(): void | Promise<void>;
  /** Stops and starts the store again, keeping its data, resolving once it answers. */
  restart(): Promise<void>;
  /**
   * True when a killed store comes back without what it held (no persistence): the fencing token
   * may then start over after a `store-kill`, which the checker excuses. @defaultValue false
   */
  readonly killLosesData?: boolean;
}

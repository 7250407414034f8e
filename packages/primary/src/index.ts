/**
 * `@roster/primary`: one primary per role type through a heartbeat table judged by the store's
 * own clock, and name resolution of "the primary of type X".
 *
 * Guarantees, in short (docs/primary.md has the derivation): with a store whose compare-and-set
 * and clock are one atomic step (`MemoryKV`, `RedisKV`), an entry is taken from its holder only
 * once store time is more than T past its last heartbeat, and a primary stops acting T − I (its
 * own local clock) after the start of its last successful heartbeat round. Two instances never act
 * as primary of one type at once while their clocks run slow by at most I / T relative to the
 * store's (I = 1 s, T = 5 s: 20 %), and timers fire on time.
 *
 * - {@link PrimaryContender}: the client loop (claim, confirm, heartbeat, self-stop).
 * - {@link HeartbeatTable}: `updateHeartbeat`, `getPrimary`, `inspect`, `release`.
 * - {@link PrimaryResolver}: `resolve`, `watch`, `changes`.
 *
 * @packageDocumentation
 */
export { PrimaryContender } from './PrimaryContender.js';
export type {
  ContenderState,
  PrimaryContenderOptions,
  PrimaryContenderEvent,
  StartedActingEvent,
  StoppedActingEvent,
  StateChangedEvent,
  PrimaryObservedEvent,
  RoundFailedEvent,
  CorruptEntryEvent,
  StopOptions,
} from './contenderOptions.js';
export {
  HeartbeatTable,
  type HeartbeatTableOptions,
  type Primary,
  type UpdateHeartbeatOptions,
  type HeartbeatOutcome,
  type PreviousEntry,
  type EntryState,
} from './HeartbeatTable.js';
export { PrimaryResolver, type PrimaryResolverOptions, type PrimaryChange, type WatchOptions } from './PrimaryResolver.js';
export type { HeartbeatEntry } from './entryCodec.js';
export type { CorruptEntryReport } from './corruptEntry.js';
export { PrimaryLostError, type StopReason } from './errors.js';
export type { HeartbeatTiming } from './timing.js';
export { checkUtype } from './names.js';

/**
 * `@roster/kv-adapter/internal`: **not public API.** The small utilities the other Roster packages
 * (`@roster/follower`, `@roster/election`, `@roster/cluster`, `@roster/primary`, `@roster/cli`,
 * `@roster/testing`) share with the storage layer: one deadline helper, a local deadline, the typed
 * update emitter, a level-filtering logger, the abort helpers of the clock, and the database
 * stores' newest-first gate (`LifoGate`, which the test kit's `connections` fault uses). They may change in
 * any release, without a major version; a service imports none of them (the pattern of
 * `@roster/follower/internal`).
 *
 * @packageDocumentation
 */
export { deadline, withDeadline, raceSignal, type Deadline } from './util/deadline.js';
export { LocalDeadline } from './util/LocalDeadline.js';
export { UpdateStream } from './util/UpdateStream.js';
export { LevelLogger } from './logger.js';
export { sleep, abortReason } from './clock/Clock.js';
export { LifoGate } from './backend/LifoGate.js';

/**
 * `@roster/follower/internal`: the follower's collaborators that `@roster/election` composes into
 * a node (its follower role, its candidate's and leader's reads of the leader window, its leader's
 * publications). **Not a public API**: no semver promise, it changes with `@roster/election`, which
 * is released with it. Applications use `createNode()` from `@roster/election`; tools that read a
 * cluster's keys use the wire format of the main entry, `@roster/follower`.
 *
 * @packageDocumentation
 */
export {
  Following,
  type Counters,
  type FollowingSettings,
  type NodeRole,
  showsNothingNewer,
  showsUnchanged,
} from './Following.js';
export type { FollowerTiming } from './FollowerTiming.js';
export { Staleness } from './Staleness.js';
export { Rivals } from './Rivals.js';
export { Pinger } from './Pinger.js';
export { Joiner } from './Joiner.js';
export { Pace, watchRoundTrips, type PaceOptions } from './Pace.js';
export { LeaderWindow, type LeaderWindowOptions } from './LeaderWindow.js';
export { coversBelow, readEveryNonce, type LeaderSlot, type LeaderWindowRead, type OwnPublication } from './LeaderRead.js';
export { diffLists, formatListStep, listIdOf, sameListId, type ListId, type ListStep } from './listStep.js';
export { nextVersion, sameMembers, supersedes } from './versions.js';

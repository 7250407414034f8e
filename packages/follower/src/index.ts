/**
 * `@roster/follower`: the follower side of Roster's era/nonce/version protocol (seed 003) and the
 * pieces the leader shares with it: the broadcast codec, reading the leader-key window, progress
 * (staleness) tracking, joining through the join key, and PING at the id key.
 *
 * Most applications use `createNode()` from `@roster/election`, which composes these.
 *
 * @packageDocumentation
 */
export {
  type Broadcast,
  type BroadcastParseResult,
  formatBroadcast,
  parseBroadcast,
  isGoodbye,
  isClaim,
  compareLeadership,
  sameLeadership,
  supersedes,
  bestBroadcast,
  fencingToken,
  nextVersion,
  sameMembers,
  parseHeader,
  formatHeader,
  expectedValue,
  type BroadcastHeader,
} from './broadcast.js';
export {
  type Member,
  isValidId,
  checkId,
  checkWeight,
  formatMember,
  parseMember,
} from './ids.js';
export { RosterKeys } from './keys.js';
export {
  type ListId,
  type ListStep,
  listIdOf,
  sameListId,
  diffLists,
  formatListStep,
  parseListStep,
  applyListStep,
  ListCache,
} from './listStep.js';
export { LeaderWindow, coversBelow, readEveryNonce, type LeaderWindowOptions, type LeaderWindowRead, type LeaderSlot, type OwnPublication } from './LeaderWindow.js';
export { Staleness } from './Staleness.js';
export { Ticker } from './Ticker.js';
export { Pinger, parseIdKeyValue, type IdKeyValue } from './Pinger.js';
export { Joiner } from './Joiner.js';

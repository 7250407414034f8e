/**
 * `@roster/follower`: the follower's side of Roster's protocol. Its parts (PINGs at the node's id
 * key, joining, reading the leader window and its member lists, watching the Version for
 * staleness and the rules of when a follower stands) are composed into a node by
 * `@roster/election`, through the `@roster/follower/internal` entry; most applications use
 * `createNode()` from there.
 *
 * This entry is what a tool that reads a cluster's keys needs, and what both sides of the protocol
 * agree on: the leader's broadcast (`Era Nonce Version Id member…`) and how two leaderships rank,
 * member ids, the values of an id key (`PING`, `PONG`, `LEAVE`), the key layout of a group; and
 * the `ListCache` that the nodes of one process may share.
 *
 * @packageDocumentation
 */
export {
  type Broadcast,
  type BroadcastHeader,
  type BroadcastParseResult,
  formatBroadcast,
  formatHeader,
  parseBroadcast,
  parseHeader,
  MAX_HEADER_BYTES,
  isGoodbye,
  isClaim,
  compareLeadership,
  sameLeadership,
  bestBroadcast,
  fencingToken,
} from './broadcast.js';
export { type Member, isValidId, checkId, newId, checkWeight, formatMember, parseMember, sameMember } from './ids.js';
export { MAX_PRIORITY, checkPriority, priorityFromVersion } from './priority.js';
export { type IdKeyValue, parseIdKeyValue, formatPing } from './idKey.js';
export { RosterKeys } from './keys.js';
export { ListCache } from './listStep.js';

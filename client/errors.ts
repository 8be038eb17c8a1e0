/**
 * What a client reports: the server's handshake, its state, and every
 * failure as a value with a `kind` and a message a person can act on. Start
 * failures and `unavailable` carry the tail of the server's stderr. Each
 * union comes with the array of its members (`DEATH_CAUSES`, ...), which is
 * what it is derived from.
 *
 * The shapes are defined in `client/thread/`, below both threads, because the
 * worker builds them and the main thread decodes them; this module is where
 * users get them.
 *
 * @module
 */

export {
  type ClientError,
  DEATH_CAUSES,
  type DeathCause,
  type HttpFailure,
  START_METHODS,
  type StartAttempt,
  type StartError,
  type StartFailure,
} from "./thread/outcomes.ts";
export {
  type Escalation,
  ESCALATIONS,
  FOUND_BY,
  type FoundBy,
  type FoundProcess,
  type RemoteEvidence,
  type RetirementError,
  type RetirementEvidence,
  SESSION_ENDS,
  type SessionEnd,
} from "./thread/evidence.ts";
export { CLIENT_STATES, type ClientState } from "./thread/state.ts";
export type { ServerInfo } from "./thread/server_info.ts";

/**
 * What a client reports: the server's handshake, and every failure as a
 * value with a `kind` and a message a person can act on. Start failures and
 * `unavailable` carry the tail of the server's stderr.
 *
 * The types are defined in `thread/outcomes.ts`, below both threads, because
 * the worker builds them; this module is where users get them.
 *
 * @module
 */

export type {
  ClientError,
  DeathCause,
  HttpFailure,
  StartAttempt,
  StartError,
  StartFailure,
} from "../thread/outcomes.ts";
export type {
  Escalation,
  RemoteEvidence,
  RetirementError,
  RetirementEvidence,
} from "../thread/evidence.ts";
export type { ServerInfo } from "../thread/server_info.ts";

/**
 * What a retirement reports: the evidence that a server is gone (its real
 * exit status, or what was done with a remote server's session), or why it
 * could not be confirmed; and the words of a process's end (exit status,
 * group signals, the drain check). Each shape is defined here with the
 * decoder the main thread reads it back with.
 *
 * @module
 */

import { type Fields, isCount, isDuration, isOneOf, isRecord, isString } from "./guards.ts";

/** The steps of a retirement, in order: none yet, stdin closed, SIGTERM sent, SIGKILL sent. */
export const ESCALATIONS = ["none", "stdin_closed", "sigterm", "sigkill"] as const;

/** A step of a retirement, one of {@linkcode ESCALATIONS}. */
export type Escalation = (typeof ESCALATIONS)[number];

/** A real exit status. */
export type ExitStatus = { code: number; signal: string | null };

/** The signals sent to a server's process group, in the order a retirement sends them. */
export const GROUP_SIGNALS = ["SIGTERM", "SIGKILL"] as const;

/** A signal sent to a server's process group. */
export type GroupSignal = (typeof GROUP_SIGNALS)[number];

/**
 * Whether a server's process group is empty after its leader exited:
 * `true` when no live member remains (zombies aside), `false` when some
 * survive, `"unknown"` where that cannot be checked.
 */
export type Drain = boolean | "unknown";

/** Whether `value` is a drain verdict. */
export function isDrain(value: unknown): value is Drain {
  return value === true || value === false || value === "unknown";
}

/**
 * How custody found a process of a server's that it killed: in the server's
 * process `group`, in its `session`, below it by parent links (`tree`), or,
 * adopted by the harness with nothing else linking it to the server, by the
 * server's marker in its environment (`marker`).
 */
export const FOUND_BY = ["group", "session", "tree", "marker"] as const;

/** How a process was found, one of {@linkcode FOUND_BY}. */
export type FoundBy = (typeof FOUND_BY)[number];

/** A process of the server's, other than the server, that custody killed, and how it found it. */
export type FoundProcess = { pid: number; by: FoundBy };

/** How a retirement's process ended. */
export type RetirementEvidence =
  /** The client never spawned anything: there is nothing to retire. */
  | { kind: "no_resource" }
  /** The server's real exit status was observed. */
  | {
    kind: "exited";
    /** The server's process id (also its process group id). */
    pid: number;
    /** The exit code (128 + signal number when killed by a signal). */
    code: number;
    /** The signal that ended it, if any. */
    signal: string | null;
    /**
     * Whether nothing of the server remained (zombies aside): no member of
     * its process group, none of its session, no descendant its tree placed;
     * `"unknown"` where that cannot be proven (no `/proc`, or an orphan the
     * harness adopted that it cannot place), never `true` on a guess.
     */
    drained: boolean | "unknown";
    /** The last step taken before the exit was seen. */
    escalation: Escalation;
    /**
     * The processes of the server's that custody killed itself, each with how
     * it was found (at most `FOUND_RECORDED`, the first found); absent when
     * none was (a group signal reached them all, or none was left).
     */
    found?: readonly FoundProcess[];
  }
  /** A remote server: what was done with its session. */
  | RemoteEvidence;

/** The evidence of a client that never spawned anything: there is nothing to retire. */
export function noResource(): RetirementEvidence {
  return { kind: "no_resource" };
}

/**
 * How a remote server's retirement can end its session: `stateless` (no
 * session was opened: nothing to end), `deleted` (the server confirmed the
 * `DELETE` of the session), `already_ended` (the server no longer knew it),
 * `not_deletable` (the server does not let clients end sessions: it expires
 * them), `unconfirmed` (the `DELETE` failed).
 */
export const SESSION_ENDS = [
  "stateless",
  "deleted",
  "already_ended",
  "not_deletable",
  "unconfirmed",
] as const;

/** How a remote server's session ended, one of {@linkcode SESSION_ENDS}. */
export type SessionEnd = (typeof SESSION_ENDS)[number];

/**
 * How a remote server's retirement ended its session. No process is
 * involved, so no exit is ever claimed; nothing of the client's is left open
 * in any case.
 */
export type RemoteEvidence = {
  kind: "remote";
  /** The endpoint, origin and path only. */
  url: string;
  /** What was done with the session; `message` says how an `unconfirmed` end failed. */
  session: SessionEnd;
  /** The status the `DELETE` was answered with, when it was. */
  status?: number;
  /** What went wrong, for `unconfirmed`. */
  message?: string;
};

/** Why a retirement could not be confirmed. Never permission to start a replacement. */
export type RetirementError =
  | {
    kind: "retirement_timed_out";
    message: string;
    timeoutMs: number;
    /** The last step taken before the deadline. */
    escalation: Escalation;
  }
  | { kind: "retirement_unconfirmed"; message: string };

/** Decodes retirement evidence that crossed the boundary. */
export function decodeEvidence(value: unknown): RetirementEvidence | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === "no_resource") return { kind: "no_resource" };
  if (value.kind === "remote") return decodeRemoteEvidence(value);
  if (value.kind !== "exited") return undefined;
  const { pid, code, signal, drained, escalation } = value;
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(code)) return undefined;
  if (signal !== null && !isString(signal)) return undefined;
  if (!isDrain(drained) || !isOneOf(ESCALATIONS, escalation)) return undefined;
  return { kind: "exited", pid: pid as number, code: code as number, signal, drained, escalation };
}

function decodeRemoteEvidence(value: Fields): RemoteEvidence | undefined {
  const { url, session, status, message } = value;
  if (!isString(url) || !isOneOf(SESSION_ENDS, session)) return undefined;
  if (status !== undefined && !isCount(status)) return undefined;
  if (message !== undefined && !isString(message)) return undefined;
  const evidence: RemoteEvidence = { kind: "remote", url, session };
  if (status !== undefined) evidence.status = status;
  if (message !== undefined) evidence.message = message;
  return evidence;
}

/** Decodes a retirement error that crossed the boundary. */
export function decodeRetirementError(value: unknown): RetirementError | undefined {
  if (!isRecord(value) || !isString(value.message)) return undefined;
  if (value.kind === "retirement_unconfirmed") {
    return { kind: "retirement_unconfirmed", message: value.message };
  }
  if (value.kind !== "retirement_timed_out") return undefined;
  const { timeoutMs, escalation } = value;
  if (!isDuration(timeoutMs) || !isOneOf(ESCALATIONS, escalation)) return undefined;
  return { kind: "retirement_timed_out", message: value.message, timeoutMs, escalation };
}

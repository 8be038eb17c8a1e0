/**
 * What a client reports: its state, the server's info, and every failure as
 * a value with a `kind`. These shapes cross the worker boundary as plain data and are
 * rebuilt on the main thread, so they hold only JSON-like data and strings.
 *
 * @module
 */

import type { Era, InitializeResult } from "../codec/protocol.ts";
import type { RpcError } from "../codec/jsonrpc.ts";
import { quote } from "../codec/quote.ts";

/**
 * What a server said of itself when the client connected, and how they
 * speak: the negotiated `era` and `protocolVersion`. A handshake-era server
 * answered `initialize`; a stateless-era server answered `server/discover`,
 * and its `serverInfo` is the identity it put in that result's `_meta`
 * (empty strings when it gave none).
 */
export type ServerInfo = InitializeResult & { era: Era };

/**
 * Where a client is in its life, on either side of the worker boundary:
 * `parked` (nothing spawned), `connecting`, `ready`, `failed` (its start),
 * `dead` (its server was lost), `retiring`, `retired`.
 */
export type ClientState =
  | "parked"
  | "connecting"
  | "ready"
  | "failed"
  | "dead"
  | "retiring"
  | "retired";

/** One way a start tried to speak to a server, and what came of it. */
export type StartAttempt = {
  /** The request that was tried. */
  method: "server/discover" | "initialize";
  /** What came of it, in a sentence a person can act on. */
  outcome: string;
};

/** How a client ended: why calls now answer `unavailable`. */
export type DeathCause =
  /** The client was never connected, or its start failed. */
  | "not_connected"
  /** Writing to the server's stdin failed. */
  | "write_failed"
  /** The server process exited. */
  | "exited"
  /** The server closed its stdout, or reading it failed. */
  | "stdout_closed"
  /** A line broke the framing: too long, or not UTF-8. */
  | "framing"
  /** A line was not JSON, or not a JSON-RPC message. */
  | "malformed"
  /** A remote server could not be reached, refused the client, or broke the wire. */
  | "http_failed"
  /** The worker that hosted the client crashed or stopped answering. */
  | "worker_lost"
  /** The client is shutting down or was retired. */
  | "shutdown";

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
     * Whether no member of its process group remained (zombies aside);
     * `"unknown"` where that cannot be checked.
     */
    drained: boolean | "unknown";
    /** The last step taken before the exit was seen. */
    escalation: Escalation;
  }
  /** A remote server: what was done with its session. */
  | RemoteEvidence;

/**
 * How a remote server's retirement ended its session. No process is
 * involved, so no exit is ever claimed: `stateless` (no session was
 * opened: nothing to end), `deleted` (the server confirmed the `DELETE` of
 * the session), `already_ended` (the server no longer knew it),
 * `not_deletable` (the server does not let clients end sessions: it
 * expires them), `unconfirmed` (the `DELETE` failed; `message` says how).
 * Nothing of the client's is left open in any case.
 */
export type RemoteEvidence = {
  kind: "remote";
  /** The endpoint, origin and path only. */
  url: string;
  session: "stateless" | "deleted" | "already_ended" | "not_deletable" | "unconfirmed";
  /** The status the `DELETE` was answered with, when it was. */
  status?: number;
  /** What went wrong, for `unconfirmed`. */
  message?: string;
};

/** The HTTP answer that refused a remote client. */
export type HttpFailure = {
  /** The HTTP status. */
  status: number;
  /** Its reason phrase, as the server sent it. */
  statusText: string;
  /** The first bytes of the body, printable. */
  body: string;
  /** The `WWW-Authenticate` header of a 401, telling what the server wants. */
  wwwAuthenticate?: string;
};

/** Steps of a retirement, in order: none yet, stdin closed, SIGTERM sent, SIGKILL sent. */
export type Escalation = "none" | "stdin_closed" | "sigterm" | "sigkill";

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

/** A start failure that is not about its own cleanup. */
export type StartFailure =
  | {
    kind: "transport_failed";
    message: string;
    stderrTail: string;
    /** For a remote server refused over HTTP: the answer that refused it. */
    http?: HttpFailure;
  }
  | {
    kind: "handshake_failed";
    message: string;
    stderrTail: string;
    /** Every way the start tried, in order, when it tried more than one. */
    attempts?: StartAttempt[];
  }
  | {
    kind: "version_unsupported";
    message: string;
    requested: string;
    received: string;
    stderrTail: string;
    /** Every way the start tried, in order, when it tried more than one. */
    attempts?: StartAttempt[];
  }
  | { kind: "tools_not_declared"; message: string; serverInfo: ServerInfo; stderrTail: string };

/**
 * Why `connect` failed. A start that failed after spawning has retired its
 * process; when that retirement was confirmed the failure carries its
 * evidence, and when it was not the failure is `cleanup_unconfirmed`.
 */
export type StartError =
  | StartFailure & { cleanup?: RetirementEvidence }
  | {
    kind: "cleanup_unconfirmed";
    message: string;
    /** The failure that started the cleanup. */
    cause: StartFailure;
    /** Why the cleanup could not be confirmed. */
    retirement: RetirementError;
    stderrTail: string;
  };

/** Why a request to a connected client failed. */
export type ClientError =
  | { kind: "unavailable"; cause: DeathCause; message: string; stderrTail: string }
  | {
    kind: "call_timed_out";
    method: string;
    timeoutMs: number;
    /** True when the caller's abort signal, not the deadline, ended the wait. */
    aborted: boolean;
    message: string;
  }
  | { kind: "server_error"; method: string; error: RpcError; message: string }
  | { kind: "result_malformed"; method: string; message: string }
  | { kind: "too_many_pages"; pages: number; limit: number; message: string };

/**
 * The error of a request that its deadline or its caller ended. Built in one
 * place for the worker's timer and the main thread's backstop alike.
 */
export function callTimedOut(
  server: string,
  method: string,
  timeoutMs: number,
  aborted: boolean,
): ClientError {
  return {
    kind: "call_timed_out",
    method,
    timeoutMs,
    aborted,
    message: aborted
      ? `Request ${method} to server "${server}" was cancelled by its caller`
      : `Server "${server}" did not answer ${method} within ${timeoutMs} ms; ` +
        `raise call_timeout_ms in its catalog entry (callTimeoutMs in a ServerSpec, ` +
        `or the call's timeoutMs)`,
  };
}

/**
 * The error of a request the server answered with a JSON-RPC error. Built in
 * one place for the worker and for the main thread, which decodes the
 * responses handed on to it whole.
 */
export function serverError(server: string, method: string, error: RpcError): ClientError {
  return {
    kind: "server_error",
    method,
    error,
    message: `Server "${server}" refused ${method}: ${error.message} (code ${error.code})`,
  };
}

/**
 * Why a client died of a line that is not a JSON-RPC message (cause
 * `malformed`), with an excerpt of the line. Built in one place for the
 * worker and for the main thread, which decodes the responses handed on to
 * it whole.
 */
export function malformedLine(server: string, line: string, reason: string): string {
  return `Server "${server}" wrote a line that is not a JSON-RPC message (${reason}): ${
    quote(line)
  }`;
}

/** A real exit status. */
export type ExitStatus = { code: number; signal: string | null };

/** A signal sent to a server's process group. */
export type GroupSignal = "SIGTERM" | "SIGKILL";

/**
 * Whether a server's process group is empty after its leader exited:
 * `true` when no live member remains (zombies aside), `false` when some
 * survive, `"unknown"` where that cannot be checked.
 */
export type Drain = boolean | "unknown";

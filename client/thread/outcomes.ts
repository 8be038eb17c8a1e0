/**
 * What a client reports when something fails: why a start failed, why a
 * request failed, and why a client is unavailable, each a value with a
 * `kind` and a message a person can act on. These shapes cross the worker
 * boundary as plain data; each is defined here with the decoder that reads
 * it back on the main thread, checked field by field.
 *
 * @module
 */

import type { JsonValue } from "../../codec/json.ts";
import type { RpcError } from "../../codec/jsonrpc.ts";
import { printableLine, quote } from "../../codec/quote.ts";
import { firstUnits } from "../../codec/_units.ts";
import { type Fields, isCount, isDuration, isOneOf, isRecord, isString } from "./guards.ts";
import {
  decodeEvidence,
  decodeRetirementError,
  type RetirementError,
  type RetirementEvidence,
} from "./evidence.ts";
import { decodeServerInfo, type ServerInfo } from "./server_info.ts";
import { MAX_SERVER_ERROR_CHARS } from "../../settings/limits.ts";

/** The requests a start may try, in the order it tries them: the probe, the handshake. */
export const START_METHODS = ["server/discover", "initialize"] as const;

/** One way a start tried to speak to a server, and what came of it. */
export type StartAttempt = {
  /** The request that was tried. */
  method: (typeof START_METHODS)[number];
  /** What came of it, in a sentence a person can act on. */
  outcome: string;
};

/**
 * Every way a client can end, each why its calls then answer `unavailable`:
 * `not_connected` (never connected, or its start failed), `write_failed`
 * (writing to the server's stdin failed), `exited` (the server process
 * exited), `stdout_closed` (the server closed its stdout, or reading it
 * failed), `framing` (a line broke the framing: too long, or not UTF-8),
 * `malformed` (a line was not JSON, or not a JSON-RPC message), `http_failed`
 * (a remote server could not be reached, refused the client, or broke the
 * wire), `worker_lost` (the worker that hosted the client crashed or stopped
 * answering), `shutdown` (the client is being retired or was).
 */
export const DEATH_CAUSES = [
  "not_connected",
  "write_failed",
  "exited",
  "stdout_closed",
  "framing",
  "malformed",
  "http_failed",
  "worker_lost",
  "shutdown",
] as const;

/** How a client ended, one of {@linkcode DEATH_CAUSES}: why calls now answer `unavailable`. */
export type DeathCause = (typeof DEATH_CAUSES)[number];

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
  | { kind: "tools_not_declared"; message: string; serverInfo: ServerInfo; stderrTail: string }
  /**
   * Not a fault: a remote server needs a person to sign in, and the sign-in's
   * settings give no `authorize` to show them the way. `authorizationUrl` is
   * where they sign in; the client's `completeSignIn` takes the query the
   * browser comes back with, and a start after it (or `loom-mcp login`, for
   * a token store on disk) goes through.
   */
  | {
    kind: "needs_auth";
    message: string;
    authorizationUrl: string;
    issuer: string;
    stderrTail: string;
  };

/**
 * The start failure of a remote server that could not be reached or
 * refused the client: the transport failed, whatever the start was asking
 * at the time, with the HTTP answer that refused it when there was one.
 */
export function httpFailure(message: string, http: HttpFailure | undefined): StartFailure {
  return http === undefined
    ? { kind: "transport_failed", message, stderrTail: "" }
    : { kind: "transport_failed", message, stderrTail: "", http };
}

/** The start outcome of a remote server that needs a person to sign in. */
export function needsAuthFailure(
  message: string,
  authorizationUrl: string,
  issuer: string | undefined,
): StartFailure {
  return { kind: "needs_auth", message, authorizationUrl, issuer: issuer ?? "", stderrTail: "" };
}

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
  | {
    kind: "unavailable";
    cause: DeathCause;
    message: string;
    stderrTail: string;
    /** For a supervised client that is down: when its next start is, the how-many-th of how many. */
    restart?: { attempt: number; max: number; inMs: number };
  }
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
  | { kind: "too_many_pages"; pages: number; limit: number; message: string }
  /**
   * The listing was stopped past `MAX_TOOLS` tools (`what: "tools"`) or past
   * `MAX_LISTING_BYTES` of JSON text (`what: "bytes"`), before it was held whole.
   */
  | {
    kind: "listing_too_large";
    what: "tools" | "bytes";
    /** How many tools, or how many characters of JSON text, were seen when it stopped. */
    seen: number;
    limit: number;
    message: string;
  };

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
 * The `data.refusedBy` of the answer a transport makes up for a request the
 * client refused to send (a header past `MAX_PARAM_HEADER_BYTES`): that
 * request fails as `unavailable`, in the client's words, never as the
 * server's error.
 */
export const REFUSED_BY_CLIENT = "client";

/**
 * The error of a request the server answered with a JSON-RPC error, its
 * message on one line, every code point that would move the cursor written
 * as `\u{...}`, and cut (the server's words, untrusted; the HTTP transport's
 * made-up answers, in the client's own words, pass as they are). Built in
 * one place for the worker and for the main thread, which decodes the
 * responses handed on to it whole.
 */
export function serverError(server: string, method: string, error: RpcError): ClientError {
  if (isRecord(error.data) && error.data.refusedBy === REFUSED_BY_CLIENT) {
    // The server refused nothing: the client did not send the request.
    return { kind: "unavailable", cause: "http_failed", message: error.message, stderrTail: "" };
  }
  return {
    kind: "server_error",
    method,
    error,
    message: `Server "${server}" refused ${method}: ${serverWords(error.message)} ` +
      `(code ${error.code})`,
  };
}

/** A server's words on one line, cut past {@linkcode MAX_SERVER_ERROR_CHARS}. */
function serverWords(text: string): string {
  if (text.length <= MAX_SERVER_ERROR_CHARS) return printableLine(text);
  return `${printableLine(firstUnits(text, MAX_SERVER_ERROR_CHARS))}…`;
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

/** Decodes a client error that crossed the boundary. */
export function decodeClientError(value: unknown): ClientError | undefined {
  if (!isRecord(value) || !isString(value.message)) return undefined;
  const message = value.message;
  switch (value.kind) {
    case "unavailable":
      return isOneOf(DEATH_CAUSES, value.cause) && isString(value.stderrTail)
        ? { kind: "unavailable", cause: value.cause, message, stderrTail: value.stderrTail }
        : undefined;
    case "call_timed_out":
      return isString(value.method) && isDuration(value.timeoutMs) &&
          typeof value.aborted === "boolean"
        ? {
          kind: "call_timed_out",
          method: value.method,
          timeoutMs: value.timeoutMs,
          aborted: value.aborted,
          message,
        }
        : undefined;
    case "server_error": {
      const error = value.error;
      if (!isString(value.method) || !isRecord(error)) return undefined;
      if (!Number.isSafeInteger(error.code) || !isString(error.message)) return undefined;
      const rpc = "data" in error
        ? { code: error.code as number, message: error.message, data: error.data as JsonValue }
        : { code: error.code as number, message: error.message };
      return { kind: "server_error", method: value.method, error: rpc, message };
    }
    case "result_malformed":
      return isString(value.method)
        ? { kind: "result_malformed", method: value.method, message }
        : undefined;
    case "too_many_pages":
      return isCount(value.pages) && isCount(value.limit)
        ? { kind: "too_many_pages", pages: value.pages, limit: value.limit, message }
        : undefined;
    case "listing_too_large":
      return (value.what === "tools" || value.what === "bytes") && isCount(value.seen) &&
          isCount(value.limit)
        ? {
          kind: "listing_too_large",
          what: value.what,
          seen: value.seen,
          limit: value.limit,
          message,
        }
        : undefined;
    default:
      return undefined;
  }
}

function decodeHttpFailure(value: unknown): HttpFailure | undefined | false {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return false;
  const { status, statusText, body, wwwAuthenticate } = value;
  if (!isCount(status) || !isString(statusText) || !isString(body)) return false;
  if (wwwAuthenticate !== undefined && !isString(wwwAuthenticate)) return false;
  const http: HttpFailure = { status, statusText, body };
  if (wwwAuthenticate !== undefined) http.wwwAuthenticate = wwwAuthenticate;
  return http;
}

function decodeAttempts(value: unknown): StartAttempt[] | undefined | false {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return false;
  const attempts: StartAttempt[] = [];
  for (const item of value) {
    if (!isRecord(item) || !isString(item.outcome)) return false;
    if (!isOneOf(START_METHODS, item.method)) return false;
    attempts.push({ method: item.method, outcome: item.outcome });
  }
  return attempts;
}

function decodeStartFailure(value: Fields): StartFailure | undefined {
  const { message, stderrTail } = value;
  if (!isString(message) || !isString(stderrTail)) return undefined;
  const attempts = decodeAttempts(value.attempts);
  if (attempts === false) return undefined;
  const tried = attempts === undefined ? {} : { attempts };
  switch (value.kind) {
    case "transport_failed": {
      const http = decodeHttpFailure(value.http);
      if (http === false) return undefined;
      return http === undefined
        ? { kind: value.kind, message, stderrTail }
        : { kind: value.kind, message, stderrTail, http };
    }
    case "handshake_failed":
      return { kind: value.kind, message, stderrTail, ...tried };
    case "version_unsupported":
      return isString(value.requested) && isString(value.received)
        ? {
          kind: "version_unsupported",
          message,
          requested: value.requested,
          received: value.received,
          stderrTail,
          ...tried,
        }
        : undefined;
    case "needs_auth":
      return isString(value.authorizationUrl) && isString(value.issuer)
        ? {
          kind: "needs_auth",
          message,
          authorizationUrl: value.authorizationUrl,
          issuer: value.issuer,
          stderrTail,
        }
        : undefined;
    case "tools_not_declared": {
      const info = decodeServerInfo(value.serverInfo);
      return info !== undefined
        ? { kind: "tools_not_declared", message, serverInfo: info, stderrTail }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** Decodes a start error that crossed the boundary. */
export function decodeStartError(value: unknown): StartError | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === "cleanup_unconfirmed") {
    const cause = isRecord(value.cause) ? decodeStartFailure(value.cause) : undefined;
    const retirement = decodeRetirementError(value.retirement);
    if (cause === undefined || retirement === undefined) return undefined;
    if (!isString(value.message) || !isString(value.stderrTail)) return undefined;
    return {
      kind: "cleanup_unconfirmed",
      message: value.message,
      cause,
      retirement,
      stderrTail: value.stderrTail,
    };
  }
  const failure = decodeStartFailure(value);
  if (failure === undefined) return undefined;
  if (value.cleanup === undefined) return failure;
  const cleanup = decodeEvidence(value.cleanup);
  return cleanup === undefined ? undefined : { ...failure, cleanup };
}

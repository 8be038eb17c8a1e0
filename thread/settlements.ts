// The main thread's reading of what a client's worker
// sends (settlements, start and retirement outcomes, errors, evidence, and
// the requests for group signals and drain checks). Errors cross the
// boundary as plain data and are rebuilt here, checked field by field: a
// worker that sends anything else has broken protocol, and the client treats
// it as lost.

import type { JsonValue } from "../codec/json.ts";
import { decodeInitializeResult, eraOf, SUPPORTED_VERSIONS } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type {
  ClientError,
  DeathCause,
  Escalation,
  HttpFailure,
  RemoteEvidence,
  RetirementError,
  RetirementEvidence,
  ServerInfo,
  StartAttempt,
  StartError,
  StartFailure,
} from "./outcomes.ts";
import type { FromWorker } from "./messages.ts";
import type { GroupSignal } from "./outcomes.ts";
import { type Fields, isCount, isDrain, isDuration, isRecord, isString } from "./guards.ts";

const DEATH_CAUSES: ReadonlySet<string> = new Set([
  "not_connected",
  "write_failed",
  "exited",
  "stdout_closed",
  "framing",
  "malformed",
  "http_failed",
  "worker_lost",
  "shutdown",
]);
const ESCALATIONS: ReadonlySet<string> = new Set(["none", "stdin_closed", "sigterm", "sigkill"]);
const SIGNALS: ReadonlySet<string> = new Set(["SIGTERM", "SIGKILL"]);

/** Decodes a client error that crossed the boundary. */
export function decodeClientError(value: unknown): ClientError | undefined {
  if (!isRecord(value) || !isString(value.message)) return undefined;
  const message = value.message;
  switch (value.kind) {
    case "unavailable":
      return isString(value.cause) && DEATH_CAUSES.has(value.cause) && isString(value.stderrTail)
        ? {
          kind: "unavailable",
          cause: value.cause as DeathCause,
          message,
          stderrTail: value.stderrTail,
        }
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
    default:
      return undefined;
  }
}

/** Decodes retirement evidence that crossed the boundary. */
export function decodeEvidence(value: unknown): RetirementEvidence | undefined {
  if (!isRecord(value)) return undefined;
  if (value.kind === "no_resource") return { kind: "no_resource" };
  if (value.kind === "remote") return decodeRemoteEvidence(value);
  if (value.kind !== "exited") return undefined;
  const { pid, code, signal, drained, escalation } = value;
  if (!Number.isSafeInteger(pid) || !Number.isSafeInteger(code)) return undefined;
  if (signal !== null && !isString(signal)) return undefined;
  if (!isDrain(drained) || !isString(escalation) || !ESCALATIONS.has(escalation)) return undefined;
  return {
    kind: "exited",
    pid: pid as number,
    code: code as number,
    signal,
    drained,
    escalation: escalation as Escalation,
  };
}

const SESSION_ENDS: ReadonlySet<string> = new Set([
  "stateless",
  "deleted",
  "already_ended",
  "not_deletable",
  "unconfirmed",
]);

function decodeRemoteEvidence(value: Fields): RemoteEvidence | undefined {
  const { url, session, status, message } = value;
  if (!isString(url) || !isString(session) || !SESSION_ENDS.has(session)) return undefined;
  if (status !== undefined && !isCount(status)) return undefined;
  if (message !== undefined && !isString(message)) return undefined;
  const evidence: RemoteEvidence = {
    kind: "remote",
    url,
    session: session as RemoteEvidence["session"],
  };
  if (status !== undefined) evidence.status = status;
  if (message !== undefined) evidence.message = message;
  return evidence;
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

/** Decodes a retirement error that crossed the boundary. */
export function decodeRetirementError(value: unknown): RetirementError | undefined {
  if (!isRecord(value) || !isString(value.message)) return undefined;
  if (value.kind === "retirement_unconfirmed") {
    return { kind: "retirement_unconfirmed", message: value.message };
  }
  if (value.kind !== "retirement_timed_out") return undefined;
  if (!isDuration(value.timeoutMs) || !isString(value.escalation)) return undefined;
  if (!ESCALATIONS.has(value.escalation)) return undefined;
  return {
    kind: "retirement_timed_out",
    message: value.message,
    timeoutMs: value.timeoutMs,
    escalation: value.escalation as Escalation,
  };
}

/** Decodes the server info of a start that crossed the boundary: its era and version included. */
export function decodeServerInfo(value: unknown): ServerInfo | undefined {
  if (!isRecord(value)) return undefined;
  const era = value.era;
  if (era !== "modern" && era !== "legacy") return undefined;
  const version = value.protocolVersion;
  if (!isString(version) || eraOf(version) !== era) return undefined;
  const info = decodeInitializeResult(value as JsonValue, version, SUPPORTED_VERSIONS);
  return info.ok ? { ...info.value, era } : undefined;
}

function decodeAttempts(value: unknown): StartAttempt[] | undefined | false {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return false;
  const attempts: StartAttempt[] = [];
  for (const item of value) {
    if (!isRecord(item) || !isString(item.outcome)) return false;
    if (item.method !== "server/discover" && item.method !== "initialize") return false;
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

function decodeOutcome<T, E>(
  value: unknown,
  decodeValue: (value: unknown) => T | undefined,
  decodeError: (value: unknown) => E | undefined,
): Result<T, E> | undefined {
  if (!isRecord(value)) return undefined;
  if (value.ok === true) {
    const decoded = decodeValue(value.value);
    return decoded === undefined ? undefined : ok(decoded);
  }
  if (value.ok === false) {
    const decoded = decodeError(value.error);
    return decoded === undefined ? undefined : err(decoded);
  }
  return undefined;
}

// Values are checked by the decoder of their method on the main thread.
function asJson(value: unknown): JsonValue | undefined {
  return value === undefined ? undefined : value as JsonValue;
}

function decodeEvent(value: unknown): FromWorker | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.kind) {
    case "spawned":
      return isCount(value.pid) ? { kind: "spawned", pid: value.pid } : undefined;
    case "started": {
      const outcome = decodeOutcome(value.outcome, asJson, decodeStartError);
      return outcome === undefined ? undefined : { kind: "started", outcome };
    }
    case "settled": {
      const outcome = decodeOutcome(value.outcome, asJson, decodeClientError);
      return outcome === undefined || !isCount(value.ticket)
        ? undefined
        : { kind: "settled", ticket: value.ticket, outcome };
    }
    case "answers": {
      const { tickets, ids, lines } = value;
      if (!Array.isArray(tickets) || !Array.isArray(ids)) return undefined;
      if (!isString(lines) && !(lines instanceof Uint8Array)) return undefined;
      const count = tickets.length;
      if (ids.length !== count || count === 0) return undefined;
      for (let index = 0; index < count; index++) {
        if (!isCount(tickets[index]) || !isCount(ids[index])) return undefined;
      }
      return { kind: "answers", tickets, ids, lines };
    }
    case "died": {
      const error = decodeClientError(value.error);
      return error === undefined ? undefined : { kind: "died", error };
    }
    case "exited": {
      const { pid, code, signal } = value;
      if (!isCount(pid) || !Number.isSafeInteger(code)) return undefined;
      if (signal !== null && !isString(signal)) return undefined;
      return { kind: "exited", pid, code: code as number, signal };
    }
    case "stderr":
      return value.bytes instanceof Uint8Array ? { kind: "stderr", bytes: value.bytes } : undefined;
    case "signal":
      return isCount(value.pid) && value.pid > 0 && isString(value.signal) &&
          SIGNALS.has(value.signal)
        ? { kind: "signal", pid: value.pid, signal: value.signal as GroupSignal }
        : undefined;
    case "drain":
      return isCount(value.seq) && isCount(value.pid) && value.pid > 0 &&
          isDuration(value.deadlineMs)
        ? { kind: "drain", seq: value.seq, pid: value.pid, deadlineMs: value.deadlineMs }
        : undefined;
    case "retired": {
      const outcome = decodeOutcome(value.outcome, decodeEvidence, decodeRetirementError);
      return outcome === undefined ? undefined : { kind: "retired", outcome };
    }
    default:
      return undefined;
  }
}

/**
 * Decodes one message from a worker: an array of events. The first event
 * that does not decode fails the message, with its index.
 *
 * @example Decode a spawn report
 * ```ts
 * import { decodeFromWorker } from "./settlements.ts";
 * const events = decodeFromWorker([{ kind: "spawned", pid: 42 }]);
 * console.log(events.ok && events.value[0]); // { kind: "spawned", pid: 42 }
 * ```
 */
export function decodeFromWorker(data: unknown): Result<FromWorker[], string> {
  if (!Array.isArray(data)) return err("Cannot decode a message from the worker: not an array");
  const events: FromWorker[] = [];
  for (let index = 0; index < data.length; index++) {
    const event = decodeEvent(data[index]);
    if (event === undefined) {
      const kind = isRecord(data[index]) ? JSON.stringify(String(data[index].kind)) : "none";
      return err(`Cannot decode event ${index} (kind ${kind}) from the worker`);
    }
    events.push(event);
  }
  return ok(events);
}

/**
 * What crosses between the main thread and a client's worker: plain data
 * with a `kind`, decoded defensively on both sides.
 *
 * Requests, the hot path, travel as compact strings (`ticket|timeoutMs|
 * method|params`), several joined by `\n` in one message: a string crosses
 * the boundary far cheaper than an object, and the rendered parameters reach
 * the pipe without being parsed again. Everything the worker sends is an
 * array of events, batched per turn of its event loop.
 *
 * @module
 */

import type { JsonValue } from "../codec/json.ts";
import { decodeInitializeResult } from "../codec/protocol.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type {
  ClientError,
  DeathCause,
  Escalation,
  RetirementError,
  RetirementEvidence,
  StartError,
  StartFailure,
} from "./errors.ts";
import type { Drain, GroupSignal } from "./transport.ts";

export type * from "./errors.ts";
export { callTimedOut } from "./errors.ts";
export { ByteTail } from "./tail.ts";
export type { Drain, GroupSignal } from "./transport.ts";

/** The methods a main thread may ask a worker to run. */
export type RequestMethod = "tools/call" | "tools/list" | "ping";

/** One request, decoded in the worker. */
export type WorkerRequest = {
  ticket: number;
  timeoutMs: number;
  method: RequestMethod;
  /** Compact JSON of the params object, as text (`""` for none) or UTF-8 bytes. */
  params: string | Uint8Array;
};

/**
 * Parameters at least this long (in UTF-16 units) cross to the worker as
 * UTF-8 bytes in a transferred buffer, in a `request` message of their own:
 * posting a long string costs a copy on each side (measured: 27 ms to post 8
 * MiB as a string, 0.3 ms as a transferred buffer), and the worker would
 * encode it again before writing.
 */
export const TRANSFER_PARAMS_CHARS = 64 * 1024;

/** A request whose parameters are transferred bytes; see {@linkcode TRANSFER_PARAMS_CHARS}. */
export type BytesRequest = {
  kind: "request";
  ticket: number;
  timeoutMs: number;
  method: RequestMethod;
  params: Uint8Array;
};

/** Everything a worker needs to start its server. */
export type StartMessage = {
  kind: "start";
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string | null;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  retirementTimeoutMs: number;
  forwardStderr: boolean;
};

/**
 * A message from the main thread other than a batch of requests (those are
 * strings): a start, a request with long parameters, a cancel, a retire, a
 * drain answer.
 */
export type ToWorker =
  | StartMessage
  | BytesRequest
  | { kind: "cancel"; ticket: number }
  | { kind: "retire"; timeoutMs: number }
  | { kind: "drained"; seq: number; drained: Drain };

/** One event from a worker. */
export type FromWorker =
  | { kind: "spawned"; pid: number }
  | { kind: "started"; outcome: Result<JsonValue, StartError> }
  | { kind: "settled"; ticket: number; outcome: Result<JsonValue, ClientError> }
  | { kind: "died"; error: ClientError }
  | { kind: "exited"; pid: number; code: number; signal: string | null }
  | { kind: "stderr"; bytes: Uint8Array }
  | { kind: "signal"; pid: number; signal: GroupSignal }
  | { kind: "drain"; seq: number; pid: number; deadlineMs: number }
  | { kind: "retired"; outcome: Result<RetirementEvidence, RetirementError> };

const METHODS: ReadonlySet<string> = new Set(["tools/call", "tools/list", "ping"]);
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/**
 * Renders one request for the worker. `paramsText` must be compact JSON of an
 * object (no raw newline can occur in it) or `""`.
 *
 * @example Render a ping
 * ```ts
 * import { renderRequest } from "./messages.ts";
 * console.log(renderRequest(1, 500, "ping", "")); // 1|500|ping|
 * ```
 */
export function renderRequest(
  ticket: number,
  timeoutMs: number,
  method: RequestMethod,
  paramsText: string,
): string {
  return `${ticket}|${timeoutMs}|${method}|${paramsText}`;
}

/**
 * Decodes a batch of requests; a line that is not one is reported by its
 * index, with the requests before it.
 *
 * @example Decode a batch of two
 * ```ts
 * import { decodeRequests } from "./messages.ts";
 * const batch = decodeRequests('1|500|ping|\n2|500|tools/call|{"name":"x","arguments":{}}');
 * console.log(batch.requests.length); // 2
 * ```
 */
export function decodeRequests(
  batch: string,
): { requests: WorkerRequest[]; fault?: string; faultTicket?: number } {
  const requests: WorkerRequest[] = [];
  for (const line of batch.split("\n")) {
    const first = line.indexOf("|");
    const second = line.indexOf("|", first + 1);
    const third = line.indexOf("|", second + 1);
    const ticket = Number(line.slice(0, first));
    const timeoutMs = Number(line.slice(first + 1, second));
    const method = line.slice(second + 1, third);
    const paramsText = line.slice(third + 1);
    const params = paramsText === "" ||
      (paramsText.startsWith("{") && paramsText.endsWith("}"));
    if (
      first <= 0 || second < 0 || third < 0 || !Number.isSafeInteger(ticket) || ticket < 0 ||
      !(timeoutMs >= 0) || !Number.isFinite(timeoutMs) || !METHODS.has(method) || !params
    ) {
      const fault = `Cannot decode request ${requests.length} from the main thread: ` +
        JSON.stringify(line.slice(0, 60));
      return Number.isSafeInteger(ticket)
        ? { requests, fault, faultTicket: ticket }
        : { requests, fault };
    }
    requests.push({ ticket, timeoutMs, method: method as RequestMethod, params: paramsText });
  }
  return { requests };
}

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isDuration(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isDrain(value: unknown): value is Drain {
  return value === true || value === false || value === "unknown";
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every(isString);
}

/**
 * Decodes a control message in the worker.
 *
 * @example Decode a retire message
 * ```ts
 * import { decodeToWorker } from "./messages.ts";
 * console.log(decodeToWorker({ kind: "retire", timeoutMs: 5000 }).ok); // true
 * ```
 */
export function decodeToWorker(data: unknown): Result<ToWorker, string> {
  if (!isRecord(data)) return err("Cannot decode a message to the worker: it is not an object");
  const bad = (what: string) => err(`Cannot decode a "${String(data.kind)}" message: ${what}`);
  switch (data.kind) {
    case "start": {
      const { name, command, args, env, cwd } = data;
      if (!isString(name) || !isString(command)) return bad("no name or command");
      if (!Array.isArray(args) || !args.every(isString)) return bad("args are not strings");
      if (!isStringRecord(env)) return bad("env is not a string record");
      if (cwd !== null && !isString(cwd)) return bad("cwd is not a string");
      const { connectTimeoutMs, callTimeoutMs, retirementTimeoutMs, forwardStderr } = data;
      if (!isDuration(connectTimeoutMs) || !isDuration(callTimeoutMs)) return bad("bad deadline");
      if (!isDuration(retirementTimeoutMs)) return bad("bad retirement deadline");
      if (typeof forwardStderr !== "boolean") return bad("forwardStderr is not a boolean");
      return ok({
        kind: "start",
        name,
        command,
        args: [...args],
        env: { ...env },
        cwd,
        connectTimeoutMs,
        callTimeoutMs,
        retirementTimeoutMs,
        forwardStderr,
      });
    }
    case "request": {
      const { ticket, timeoutMs, method, params } = data;
      if (!isCount(ticket) || !isDuration(timeoutMs)) return bad("bad ticket or deadline");
      if (!isString(method) || !METHODS.has(method)) return bad("unknown method");
      // Compact JSON of an object: braces at both ends, no raw newline to break the line.
      if (
        !(params instanceof Uint8Array) || params[0] !== OPEN_BRACE ||
        params[params.length - 1] !== CLOSE_BRACE || params.includes(NEWLINE)
      ) {
        return bad("params are not the bytes of one compact JSON object");
      }
      return ok({ kind: "request", ticket, timeoutMs, method: method as RequestMethod, params });
    }
    case "cancel":
      return isCount(data.ticket) ? ok({ kind: "cancel", ticket: data.ticket }) : bad("bad ticket");
    case "retire":
      return isDuration(data.timeoutMs)
        ? ok({ kind: "retire", timeoutMs: data.timeoutMs })
        : bad("bad deadline");
    case "drained":
      return isCount(data.seq) && isDrain(data.drained)
        ? ok({ kind: "drained", seq: data.seq, drained: data.drained })
        : bad("bad seq or drain");
    default:
      return bad("unknown kind");
  }
}

const DEATH_CAUSES: ReadonlySet<string> = new Set([
  "not_connected",
  "write_failed",
  "exited",
  "stdout_closed",
  "framing",
  "malformed",
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

function decodeStartFailure(value: Fields): StartFailure | undefined {
  const { message, stderrTail } = value;
  if (!isString(message) || !isString(stderrTail)) return undefined;
  switch (value.kind) {
    case "transport_failed":
    case "handshake_failed":
      return { kind: value.kind, message, stderrTail };
    case "version_unsupported":
      return isString(value.requested) && isString(value.received)
        ? {
          kind: "version_unsupported",
          message,
          requested: value.requested,
          received: value.received,
          stderrTail,
        }
        : undefined;
    case "tools_not_declared": {
      const info = decodeInitializeResult(value.serverInfo as JsonValue);
      return info.ok
        ? { kind: "tools_not_declared", message, serverInfo: info.value, stderrTail }
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
 * import { decodeFromWorker } from "./messages.ts";
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

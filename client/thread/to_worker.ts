/**
 * What the main thread sends a client's worker: each message defined once,
 * its encoder and its decoder side by side, the worker reading every one
 * defensively. What the worker sends back is `from_worker.ts`; how either
 * crosses (a ring's frame or a posted message, in order) is `link.ts`.
 *
 * Requests, the hot path, travel as compact strings (`ticket|timeoutMs|
 * method|params`), several joined by `\n` in one frame: a string crosses
 * the boundary far cheaper than an object, and the rendered parameters reach
 * the pipe without being parsed again. Long parameters cross as transferred
 * bytes instead ({@linkcode TRANSFER_PARAMS_CHARS}). Every other message is
 * plain data with a `kind`, one of {@linkcode TO_WORKER_KINDS}.
 *
 * One ticket scheme runs both ways: the main thread's `request` is answered
 * by the worker's `settled`, the worker's `ask` by the main thread's `reply`,
 * each with its ticket. The main thread's requests are the calls; the
 * worker's asks are the group signals and drain checks it cannot do itself
 * and a remote server's credentials (`from_worker.ts`), which the main
 * thread answers here
 * ({@linkcode encodeAskReply}).
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";
import {
  describe,
  type Fields,
  isCount,
  isDuration,
  isOneOf,
  isRecord,
  isString,
} from "./guards.ts";
import { type Drain, isDrain } from "./evidence.ts";
import { type AuthAnswer, type AuthHeaders, isAuthAnswer, isAuthHeaders } from "./auth.ts";
import { isServerAnswer, type ServerAnswer } from "./asked.ts";
import { decodeStart, type StartMessage } from "./start_message.ts";

export {
  encodeStart,
  type RemoteTarget,
  type StartMessage,
  type StartRings,
} from "./start_message.ts";

/** The methods a main thread may ask a worker to run. */
export const REQUEST_METHODS = [
  "tools/call",
  "tools/list",
  "ping",
  "resources/read",
  "resources/list",
  "resources/templates/list",
  "resources/subscribe",
  "resources/unsubscribe",
  "subscriptions/listen",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "logging/setLevel",
  "skills/list",
  "skills/get",
] as const;

/** A method a main thread may ask a worker to run, one of {@linkcode REQUEST_METHODS}. */
export type RequestMethod = (typeof REQUEST_METHODS)[number];

/** The kinds of the messages a main thread posts to a worker (requests as text aside). */
export const TO_WORKER_KINDS = [
  "start",
  "request",
  "cancel",
  "malformed",
  "retire",
  "reply",
  "fresh_credentials",
  "long_call",
] as const;

/** A message the main thread posts to a worker. */
export type ToWorker =
  | StartMessage
  | BytesRequest
  | CancelMessage
  | MalformedMessage
  | RetireMessage
  | AskReply
  | FreshCredentials
  | LongCallMessage;

// ---- requests as text: the hot path ----

/** One request, decoded in the worker. */
export type WorkerRequest = {
  ticket: number;
  timeoutMs: number;
  method: RequestMethod;
  /** Compact JSON of the params object, as text (`""` for none) or UTF-8 bytes. */
  params: string | Uint8Array;
};

// A set for the hot path's one look-up per request.
const METHODS: ReadonlySet<string> = new Set(REQUEST_METHODS);

/**
 * Renders one request for the worker. `paramsText` must be compact JSON of an
 * object (no raw newline can occur in it) or `""`.
 *
 * @example Render a ping
 * ```ts
 * import { renderRequest } from "./to_worker.ts";
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
 * How a request's parameters begin when the main thread wrote a `_meta` of
 * its own into them (the trace context of the request's span): they then
 * always begin so, and the worker merges its own `_meta` fields (a modern
 * envelope, a progress token) into that object instead of adding another.
 */
export const PARAMS_META_LEAD = '{"_meta":{';

/**
 * Decodes a batch of requests; a line that is not one is reported by its
 * index, with the requests before it.
 *
 * @example Decode a batch of two
 * ```ts
 * import { decodeRequests } from "./to_worker.ts";
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

// ---- request, with parameter bytes ----

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

/** Encodes a request with parameter bytes, and the buffer to transfer with it. */
export function encodeBytesRequest(
  ticket: number,
  timeoutMs: number,
  method: RequestMethod,
  params: Uint8Array,
): [BytesRequest, ArrayBuffer[]] {
  return [{ kind: "request", ticket, timeoutMs, method, params }, [params.buffer as ArrayBuffer]];
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

function decodeBytesRequest(data: Fields): Result<BytesRequest, string> {
  const { ticket, timeoutMs, method, params } = data;
  if (!isCount(ticket) || !isDuration(timeoutMs)) return err("bad ticket or deadline");
  if (!isOneOf(REQUEST_METHODS, method)) return err("unknown method");
  // Compact JSON of an object: braces at both ends, no raw newline to break the line.
  if (
    !(params instanceof Uint8Array) || params[0] !== OPEN_BRACE ||
    params[params.length - 1] !== CLOSE_BRACE || params.includes(NEWLINE)
  ) {
    return err("params are not the bytes of one compact JSON object");
  }
  return ok({ kind: "request", ticket, timeoutMs, method, params });
}

// ---- long call: one that reports progress or runs as a task ----

/**
 * A `tools/call` whose caller follows it: it asks the server for progress
 * (`progress`: the worker sends a `progressToken` and hands on each
 * `notifications/progress` for it), and runs as a task (`task`: the worker
 * creates the task in the era the server speaks, polls it and fetches its
 * result, and settles the ticket with that result). Posted, never batched:
 * such calls are few and long, and the hot path keeps its one format.
 * `ttlMs` is how long the task is asked to be kept.
 */
export type LongCallMessage = {
  kind: "long_call";
  ticket: number;
  timeoutMs: number;
  /** Compact JSON of the `tools/call` params object. */
  params: string;
  progress: boolean;
  task: boolean;
  ttlMs: number;
};

/** Encodes a long call. */
export function encodeLongCall(call: Omit<LongCallMessage, "kind">): LongCallMessage {
  return { kind: "long_call", ...call };
}

function decodeLongCall(data: Fields): Result<LongCallMessage, string> {
  const { ticket, timeoutMs, params, progress, task, ttlMs } = data;
  if (!isCount(ticket) || !isDuration(timeoutMs) || !isDuration(ttlMs)) {
    return err("bad ticket or deadline");
  }
  if (!isString(params) || !params.startsWith("{") || !params.endsWith("}")) {
    return err("params are not compact JSON of an object");
  }
  if (params.includes("\n")) return err("params hold a newline");
  if (typeof progress !== "boolean" || typeof task !== "boolean") {
    return err("progress or task is not a boolean");
  }
  return ok(encodeLongCall({ ticket, timeoutMs, params, progress, task, ttlMs }));
}

// ---- cancel ----

/** The caller gave up on a ticket: its deadline passed (`timedOut`), or it aborted. */
export type CancelMessage = { kind: "cancel"; ticket: number; timedOut: boolean };

/** Encodes a cancel. */
export function encodeCancel(ticket: number, timedOut: boolean): CancelMessage {
  return { kind: "cancel", ticket, timedOut };
}

function decodeCancel(data: Fields): Result<CancelMessage, string> {
  const { ticket, timedOut } = data;
  return isCount(ticket) && typeof timedOut === "boolean"
    ? ok(encodeCancel(ticket, timedOut))
    : err("bad ticket");
}

// ---- malformed ----

/** Why an answer handed on raw was refused: not its response, or not UTF-8. */
export const LINE_FAULTS = ["malformed", "framing"] as const;

/** Why an answer handed on raw was refused, one of {@linkcode LINE_FAULTS}. */
export type LineFault = (typeof LINE_FAULTS)[number];

/**
 * An answer handed on raw was refused on the main thread, which decoded it
 * (`cause` is one of {@linkcode LINE_FAULTS}): the client dies of it in the
 * worker, which reports the death.
 */
export type MalformedMessage = {
  kind: "malformed";
  message: string;
  cause: LineFault;
};

/** Encodes a refused answer. */
export function encodeMalformed(
  message: string,
  cause: MalformedMessage["cause"],
): MalformedMessage {
  return { kind: "malformed", message, cause };
}

function decodeMalformed(data: Fields): Result<MalformedMessage, string> {
  const { message, cause } = data;
  return isString(message) && isOneOf(LINE_FAULTS, cause)
    ? ok(encodeMalformed(message, cause))
    : err("message is not a string or cause unknown");
}

// ---- retire ----

/** Retire the server within `timeoutMs`. */
export type RetireMessage = { kind: "retire"; timeoutMs: number };

/** Encodes a retire. */
export function encodeRetire(timeoutMs: number): RetireMessage {
  return { kind: "retire", timeoutMs };
}

function decodeRetire(data: Fields): Result<RetireMessage, string> {
  return isDuration(data.timeoutMs) ? ok(encodeRetire(data.timeoutMs)) : err("bad deadline");
}

// ---- reply: the answer to a worker's ask ----

/**
 * The main thread's answer to the worker's ask of `ticket`
 * (`from_worker.ts`): a drain check's verdict, or, for a signal, whether it
 * was sent; for an ask about credentials, an `AuthAnswer` (`auth.ts`); for
 * a server's request, the `ServerAnswer` to send it (`asked.ts`).
 */
export type AskReply = { kind: "reply"; ticket: number; value: AskAnswer };

/** What a worker's ask is answered with. */
export type AskAnswer = Drain | AuthAnswer | ServerAnswer;

/** Encodes the answer to a worker's request. */
export function encodeAskReply(ticket: number, value: AskAnswer): AskReply {
  return { kind: "reply", ticket, value };
}

function decodeReply(data: Fields): Result<AskReply, string> {
  const { ticket, value } = data;
  if (!isCount(ticket)) return err("bad ticket");
  if (isDrain(value)) return ok(encodeAskReply(ticket, value));
  if (!isAuthAnswer(value) && !isServerAnswer(value)) {
    return err("the answer is neither a drain verdict, credentials nor a server's answer");
  }
  return ok(encodeAskReply(ticket, structuredClone(value)));
}

// ---- fresh_credentials: a new token's headers ----

/**
 * The credentials a remote server's requests carry from now on (a refreshed
 * token's): headers and which token they hold, never more.
 */
export type FreshCredentials = { kind: "fresh_credentials" } & AuthHeaders;

/** Encodes new credentials. */
export function encodeFreshCredentials(credentials: AuthHeaders): FreshCredentials {
  return {
    kind: "fresh_credentials",
    headers: { ...credentials.headers },
    serial: credentials.serial,
    perRequest: credentials.perRequest,
  };
}

function decodeFreshCredentials(data: Fields): Result<FreshCredentials, string> {
  return isAuthHeaders(data)
    ? ok(encodeFreshCredentials(data))
    : err("the credentials are not headers with a serial");
}

// ---- the worker's decoder ----

const DECODERS: {
  [K in ToWorker["kind"]]: (data: Fields) => Result<Extract<ToWorker, { kind: K }>, string>;
} = {
  start: decodeStart,
  request: decodeBytesRequest,
  cancel: decodeCancel,
  malformed: decodeMalformed,
  retire: decodeRetire,
  reply: decodeReply,
  fresh_credentials: decodeFreshCredentials,
  long_call: decodeLongCall,
};

/**
 * Decodes a message posted to the worker, or says why it is not one.
 *
 * @example Decode a retire message
 * ```ts
 * import { decodeToWorker } from "./to_worker.ts";
 * console.log(decodeToWorker({ kind: "retire", timeoutMs: 5000 }).ok); // true
 * ```
 */
export function decodeToWorker(data: unknown): Result<ToWorker, string> {
  if (!isRecord(data)) return err("Cannot decode a message to the worker: it is not an object");
  const kind = data.kind;
  if (!isOneOf(TO_WORKER_KINDS, kind)) {
    return err(`Cannot decode a message to the worker: its kind ${describe(kind)} is unknown`);
  }
  const decoded: Result<ToWorker, string> = DECODERS[kind](data);
  return decoded.ok ? decoded : err(`Cannot decode a "${kind}" message: ${decoded.error}`);
}

/**
 * What a client's worker sends the main thread: each event defined once, its
 * encoder and its decoder side by side, the main thread reading every one
 * checked field by field (a worker that sends anything else has broken
 * protocol, and the client treats it as lost). What the main thread sends is
 * `to_worker.ts`; how either crosses is `link.ts`.
 *
 * The events of one turn of the worker's event loop cross together, each
 * plain data with a `kind`, one of {@linkcode FROM_WORKER_KINDS}. The
 * responses to the main thread's requests travel as their lines (`answers`),
 * routed by the id the worker peeked and decoded once, on the main thread: a
 * line crosses far cheaper than the objects parsed from it, and a turn's
 * answers alone cross as one string ({@linkcode renderAnswers}).
 *
 * The worker's asks, for what a least-privilege worker cannot do
 * (signal a process group, read `/proc` for the drain check) and for what it
 * must not hold (a remote server's sign-in: it asks for the credentials of a
 * request, and hands over each refusal), are ordinary tickets: an `ask`
 * (`worker_ask.ts`), answered by `reply` in `to_worker.ts`.
 *
 * @module
 */

import type { JsonValue } from "../../codec/json.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import {
  decodeResult,
  describe,
  type Fields,
  isCount,
  isOneOf,
  isRecord,
  isString,
} from "./guards.ts";
import {
  type ClientError,
  decodeClientError,
  decodeStartError,
  type StartError,
} from "./outcomes.ts";
import {
  decodeEvidence,
  decodeRetirementError,
  type RetirementError,
  type RetirementEvidence,
} from "./evidence.ts";
import { decodeStateReport, type StateReport } from "./state.ts";
import { type CallProgress, decodeCallProgress } from "./progress.ts";
import { decodeNotice, type NoticeEvent } from "./notices.ts";
import { decodeAsk, decodeWithdrawn, type Withdrawn, type WorkerAsk } from "./worker_ask.ts";

export {
  ASK_METHODS,
  encodeChallengeAsk,
  encodeCredentialsAsk,
  encodeDrainAsk,
  encodeServerRequestAsk,
  encodeSignalAsk,
  encodeWithdrawn,
  type RequestTarget,
  type Withdrawn,
  type WorkerAsk,
} from "./worker_ask.ts";

/** The kinds of the events a worker sends. */
export const FROM_WORKER_KINDS = [
  "spawned",
  "exited",
  "stderr",
  "state",
  "started",
  "settled",
  "answers",
  "ask",
  "retired",
  "tools_changed",
  "progress",
  "notice",
  "withdrawn",
] as const;

/** One event from a worker. */
export type FromWorker =
  | Spawned
  | Exited
  | Stderr
  | StateMessage
  | Started
  | Settled
  | Answers
  | Withdrawn
  | WorkerAsk
  | Retired
  | ToolsChanged
  | ProgressEvent
  | NoticeEvent;

// ---- spawned, exited: the pid, for custody ----

/** The server was spawned: its pid, told at once, before anything can kill it. */
export type Spawned = { kind: "spawned"; pid: number };

/** Encodes a spawn. */
export function encodeSpawned(pid: number): Spawned {
  return { kind: "spawned", pid };
}

function decodeSpawned(data: Fields): Spawned | undefined {
  return isCount(data.pid) ? encodeSpawned(data.pid) : undefined;
}

/** The server's real exit was seen: its pid is never signalled again. */
export type Exited = { kind: "exited"; pid: number; code: number; signal: string | null };

/** Encodes an exit. */
export function encodeExited(pid: number, code: number, signal: string | null): Exited {
  return { kind: "exited", pid, code, signal };
}

function decodeExited(data: Fields): Exited | undefined {
  const { pid, code, signal } = data;
  if (!isCount(pid) || !Number.isSafeInteger(code)) return undefined;
  if (signal !== null && !isString(signal)) return undefined;
  return encodeExited(pid, code as number, signal);
}

// ---- stderr ----

/** Bytes the server wrote to its stderr, held for a moment and sent together. */
export type Stderr = { kind: "stderr"; bytes: Uint8Array };

/** Encodes stderr bytes. */
export function encodeStderr(bytes: Uint8Array): Stderr {
  return { kind: "stderr", bytes };
}

function decodeStderr(data: Fields): Stderr | undefined {
  return data.bytes instanceof Uint8Array ? encodeStderr(data.bytes) : undefined;
}

// ---- state: the machine's report of the client's life ----

/** The state machine's report: the main thread's handle is what it last heard. */
export type StateMessage = { kind: "state" } & StateReport;

/** Encodes a state report. */
export function encodeState(report: StateReport): StateMessage {
  return { kind: "state", state: report.state, death: report.death, evidence: report.evidence };
}

function decodeState(data: Fields): StateMessage | undefined {
  const report = decodeStateReport(data);
  return report === undefined ? undefined : encodeState(report);
}

// ---- started, retired: the answers to start and retire ----

/**
 * How the start went: the server's info (decoded on the main thread with
 * `decodeServerInfo`), or why it failed.
 */
export type Started = { kind: "started"; outcome: Result<JsonValue, StartError> };

/** Encodes a start's outcome. */
export function encodeStarted(outcome: Result<JsonValue, StartError>): Started {
  return { kind: "started", outcome };
}

// Values are checked by the decoder of their method on the main thread.
function asJson(value: unknown): JsonValue | undefined {
  return value === undefined ? undefined : value as JsonValue;
}

function decodeStarted(data: Fields): Started | undefined {
  const outcome = decodeResult(data.outcome, asJson, decodeStartError);
  return outcome === undefined ? undefined : encodeStarted(outcome);
}

/** How the retirement went: its evidence, or why there is none. */
export type Retired = {
  kind: "retired";
  outcome: Result<RetirementEvidence, RetirementError>;
};

/** Encodes a retirement's outcome. */
export function encodeRetired(outcome: Result<RetirementEvidence, RetirementError>): Retired {
  return { kind: "retired", outcome };
}

function decodeRetired(data: Fields): Retired | undefined {
  const outcome = decodeResult(data.outcome, decodeEvidence, decodeRetirementError);
  return outcome === undefined ? undefined : encodeRetired(outcome);
}

// ---- settled: a request of the main thread answered in the worker ----

/** A ticket the worker settled itself: a raw result, or why there is none. */
export type Settled = {
  kind: "settled";
  ticket: number;
  outcome: Result<JsonValue, ClientError>;
};

/** Encodes a settlement. */
export function encodeSettled(ticket: number, outcome: Result<JsonValue, ClientError>): Settled {
  return { kind: "settled", ticket, outcome };
}

function decodeSettled(data: Fields): Settled | undefined {
  const outcome = decodeResult(data.outcome, asJson, decodeClientError);
  return outcome === undefined || !isCount(data.ticket)
    ? undefined
    : encodeSettled(data.ticket, outcome);
}

// ---- answers: the responses, as their lines ----

/**
 * Responses handed on undecoded, in the order they arrived: for each, the
 * ticket of its request and the id the worker routed it by; `lines` holds
 * their lines joined by `\n`, as text (a small batch, decoded in one call),
 * or as the bytes the server wrote (a large one, transferred, or one that is
 * not UTF-8), which the main thread decodes whole (and reports with a
 * `malformed` message when a line is not UTF-8 or not the response of its
 * id).
 */
export type Answers = {
  kind: "answers";
  tickets: number[];
  ids: number[];
  lines: string | Uint8Array;
};

/**
 * Renders answers whose lines are text as one string, the cheapest message
 * to post: the tickets and the ids, comma-separated, a space between the two
 * lists, then a newline and the lines.
 *
 * @example Two answers
 * ```ts
 * import { renderAnswers } from "./from_worker.ts";
 * console.log(renderAnswers([4, 5], [7, 8], "{}\n{}")); // 4,5 7,8\n{}\n{}
 * ```
 */
export function renderAnswers(tickets: number[], ids: number[], lines: string): string {
  return `${tickets.join(",")} ${ids.join(",")}\n${lines}`;
}

/**
 * Decodes answers rendered by {@linkcode renderAnswers}, or says why they
 * are not.
 *
 * @example
 * ```ts
 * import { decodeAnswers } from "./from_worker.ts";
 * const answers = decodeAnswers("4 7\n{}");
 * console.log(answers.ok && answers.value.ids); // [7]
 * ```
 */
export function decodeAnswers(text: string): Result<Answers, string> {
  const end = text.indexOf("\n");
  const space = text.indexOf(" ");
  if (end === -1 || space === -1 || space > end) {
    return err("Cannot decode answers from the worker: no header");
  }
  const tickets = counts(text, 0, space);
  const ids = counts(text, space + 1, end);
  if (tickets === undefined || ids === undefined || tickets.length !== ids.length) {
    return err("Cannot decode answers from the worker: the header is not two lists of counts");
  }
  return ok({ kind: "answers", tickets, ids, lines: text.slice(end + 1) });
}

const COMMA = 0x2c;
const ZERO = 0x30;

/**
 * The non-empty comma-separated list of counts (decimal digits only) that
 * `text` holds from `from` to `to`, or `undefined`. Read in place: a turn's
 * answers carry two such lists.
 */
function counts(text: string, from: number, to: number): number[] | undefined {
  const out: number[] = [];
  let value = 0;
  let digits = 0;
  for (let index = from; index <= to; index++) {
    const code = index < to ? text.charCodeAt(index) : COMMA;
    if (code === COMMA) {
      if (digits === 0 || !Number.isSafeInteger(value)) return undefined;
      out.push(value);
      value = 0;
      digits = 0;
      continue;
    }
    const digit = code - ZERO;
    if (digit < 0 || digit > 9) return undefined;
    value = value * 10 + digit;
    digits++;
  }
  return out;
}

function decodeAnswerEvent(data: Fields): Answers | undefined {
  const { tickets, ids, lines } = data;
  if (!Array.isArray(tickets) || !Array.isArray(ids)) return undefined;
  if (!isString(lines) && !(lines instanceof Uint8Array)) return undefined;
  const count = tickets.length;
  if (ids.length !== count || count === 0) return undefined;
  for (let index = 0; index < count; index++) {
    if (!isCount(tickets[index]) || !isCount(ids[index])) return undefined;
  }
  return { kind: "answers", tickets, ids, lines };
}

// ---- tools_changed: the server said its listing changed ----

/**
 * The server said its tools changed (a handshake-era
 * `notifications/tools/list_changed`): the main thread may list them again.
 * Those said within one turn of the worker cross as one.
 */
export type ToolsChanged = { kind: "tools_changed" };

/** Encodes a change of the server's tools. */
export function encodeToolsChanged(): ToolsChanged {
  return { kind: "tools_changed" };
}

function decodeToolsChanged(_data: Fields): ToolsChanged {
  return encodeToolsChanged();
}

// ---- progress: what a long call reports while it runs ----

/** A report of the long call of `ticket` (`progress.ts`), in the order the server sent it. */
export type ProgressEvent = { kind: "progress"; ticket: number; progress: CallProgress };

/** Encodes a report of a long call. */
export function encodeProgress(ticket: number, progress: CallProgress): ProgressEvent {
  return { kind: "progress", ticket, progress };
}

function decodeProgressEvent(data: Fields): ProgressEvent | undefined {
  const progress = decodeCallProgress(data.progress);
  return progress === undefined || !isCount(data.ticket)
    ? undefined
    : encodeProgress(data.ticket, progress);
}

// ---- the main thread's decoder ----

const DECODERS: {
  [K in FromWorker["kind"]]: (data: Fields) => Extract<FromWorker, { kind: K }> | undefined;
} = {
  spawned: decodeSpawned,
  exited: decodeExited,
  stderr: decodeStderr,
  state: decodeState,
  started: decodeStarted,
  settled: decodeSettled,
  answers: decodeAnswerEvent,
  ask: decodeAsk,
  retired: decodeRetired,
  tools_changed: decodeToolsChanged,
  progress: decodeProgressEvent,
  notice: decodeNotice,
  withdrawn: decodeWithdrawn,
};

function decodeEvent(value: unknown): FromWorker | undefined {
  if (!isRecord(value) || !isOneOf(FROM_WORKER_KINDS, value.kind)) return undefined;
  return DECODERS[value.kind](value);
}

/**
 * Decodes the events of one message from a worker. The first event that
 * does not decode fails the message, with its index.
 *
 * @example Decode a spawn report
 * ```ts
 * import { decodeFromWorker } from "./from_worker.ts";
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
      const kind = isRecord(data[index]) ? describe(data[index].kind) : "none";
      return err(`Cannot decode event ${index} (kind ${kind}) from the worker`);
    }
    events.push(event);
  }
  return ok(events);
}

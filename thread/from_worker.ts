/**
 * What a client's worker sends the main thread: the events of a turn, as
 * plain data with a `kind`, and how the main thread reads them back,
 * checked field by field (a worker that sends anything else has broken
 * protocol, and the client treats it as lost).
 *
 * The responses to the main thread's requests travel as their lines
 * (`answers`), routed by the id the worker peeked and decoded once, on the
 * main thread: a line crosses far cheaper than the objects parsed from it.
 * A turn's answers alone cross as one string ({@linkcode renderAnswers}).
 *
 * @module
 */

import type { JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { decodeResult, isCount, isDuration, isOneOf, isRecord, isString } from "./guards.ts";
import {
  type ClientError,
  decodeClientError,
  decodeStartError,
  type StartError,
} from "./outcomes.ts";
import {
  decodeEvidence,
  decodeRetirementError,
  GROUP_SIGNALS,
  type GroupSignal,
  type RetirementError,
  type RetirementEvidence,
} from "./evidence.ts";

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

/** One event from a worker. */
export type FromWorker =
  | { kind: "spawned"; pid: number }
  | { kind: "started"; outcome: Result<JsonValue, StartError> }
  | { kind: "settled"; ticket: number; outcome: Result<JsonValue, ClientError> }
  | Answers
  | { kind: "died"; error: ClientError }
  | { kind: "exited"; pid: number; code: number; signal: string | null }
  | { kind: "stderr"; bytes: Uint8Array }
  | { kind: "signal"; pid: number; signal: GroupSignal }
  | { kind: "drain"; seq: number; pid: number; deadlineMs: number }
  | { kind: "retired"; outcome: Result<RetirementEvidence, RetirementError> };

/**
 * Renders answers whose lines are text as one string, the cheapest message
 * to post: the tickets and the ids, comma-separated, a space between the two
 * lists, then a newline and the lines.
 *
 * @example Two answers
 * ```ts
 *  * console.log(renderAnswers([4, 5], [7, 8], "{}\n{}")); // 4,5 7,8\n{}\n{}
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
 *  * const answers = decodeAnswers("4 7\n{}");
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

const COMMA = 0x2c;
const ZERO = 0x30;

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
      const outcome = decodeResult(value.outcome, asJson, decodeStartError);
      return outcome === undefined ? undefined : { kind: "started", outcome };
    }
    case "settled": {
      const outcome = decodeResult(value.outcome, asJson, decodeClientError);
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
      return isCount(value.pid) && value.pid > 0 && isOneOf(GROUP_SIGNALS, value.signal)
        ? { kind: "signal", pid: value.pid, signal: value.signal }
        : undefined;
    case "drain":
      return isCount(value.seq) && isCount(value.pid) && value.pid > 0 &&
          isDuration(value.deadlineMs)
        ? { kind: "drain", seq: value.seq, pid: value.pid, deadlineMs: value.deadlineMs }
        : undefined;
    case "retired": {
      const outcome = decodeResult(value.outcome, decodeEvidence, decodeRetirementError);
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
 *  * const events = decodeFromWorker([{ kind: "spawned", pid: 42 }]);
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

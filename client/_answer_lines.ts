// Private to client/: a batch of answer lines the worker handed on, as one
// text or buffer joined by `\n`, cut into its lines, each handed to
// `answered` with the ticket and id it was routed to, in order, up to the
// first that must end the client (a line that is not UTF-8 or not its
// response, or a batch whose count of lines is not its count of tickets).

import { decodeUtf8, withoutMark } from "../codec/_utf8.ts";
import type { LineFault } from "./thread/to_worker.ts";

/** Why a batch of answers ends the client: a line's fault, or the worker's. */
export type AnswerFault = { cause: LineFault | "worker"; message: string };

/** Settles one line as the response of `id`; returns why the client must die, if it must. */
export type Answered = (ticket: number, id: number, line: string) => string | undefined;

const NEWLINE = 0x0a;

/** Hands each line of `lines` of server `server` to `answered`; the first fault ends it. */
export function answerLines(
  server: string,
  tickets: readonly number[],
  ids: readonly number[],
  lines: string | Uint8Array,
  answered: Answered,
): AnswerFault | undefined {
  const text = typeof lines === "string" ? lines : decodeUtf8(lines);
  if (text === undefined) return answerEach(server, tickets, ids, lines as Uint8Array, answered);
  const each = tickets.length === 1 ? [text] : text.split("\n");
  if (each.length !== tickets.length) return miscounted(server, tickets.length, each.length);
  for (let index = 0; index < each.length; index++) {
    const fault = answered(
      tickets[index] as number,
      ids[index] as number,
      withoutMark(each[index]!),
    );
    if (fault !== undefined) return { cause: "malformed", message: fault };
  }
  return undefined;
}

/** The slow path of a batch holding a line that is not UTF-8: line by line, to find it. */
function answerEach(
  server: string,
  tickets: readonly number[],
  ids: readonly number[],
  bytes: Uint8Array,
  answered: Answered,
): AnswerFault | undefined {
  let start = 0;
  for (let index = 0; index < tickets.length; index++) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end === -1) end = bytes.length;
    const line = bytes.subarray(start, end);
    start = end + 1;
    const text = decodeUtf8(line);
    if (text === undefined) {
      return {
        cause: "framing",
        message: `Server "${server}" broke the framing: Cannot decode a line of ` +
          `${line.length} bytes: it is not valid UTF-8`,
      };
    }
    const fault = answered(tickets[index] as number, ids[index] as number, text);
    if (fault !== undefined) return { cause: "malformed", message: fault };
  }
  return start === bytes.length + 1 ? undefined : miscounted(server, tickets.length, NaN);
}

function miscounted(server: string, tickets: number, lines: number): AnswerFault {
  return {
    cause: "worker",
    message: `The worker of "${server}" broke protocol: it sent ` +
      `${Number.isNaN(lines) ? "more" : lines} answer lines for ${tickets} tickets`,
  };
}

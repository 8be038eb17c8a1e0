/**
 * The server-sent events decoder of the Streamable HTTP wire: a byte stream
 * in, the events of the WHATWG `text/event-stream` format out.
 *
 * The stream is split into lines on the `\r`, `\n` and `\r\n` bytes before
 * any decoding, so a character cut in half by a network read is never
 * decoded early, and a `\r\n` cut between two reads is one line end. Lines
 * starting with `:` are comments; `data` lines are joined with `\n`; `event`
 * names the event's type (`message` when absent); `id` sets the last event
 * id, kept across events (a value holding NUL is ignored, as the format
 * says); `retry` sets the reconnection delay when it is all ASCII digits. A
 * blank line dispatches the event, unless it has no `data` line at all (an
 * event with only an id moves the last event id and nothing else; the
 * priming event of a resumable stream, an id and an empty `data`, is
 * dispatched with empty data, which the reader skips). An unfinished event at the end of the stream is
 * discarded and counted.
 *
 * Hostile streams are named faults, never exceptions: an event whose data
 * (its `data` values joined with `\n`, in UTF-8) is past
 * {@linkcode MAX_EVENT_BYTES} is `event_too_large`; a line, of any field,
 * past {@linkcode MAX_EVENT_LINE_BYTES} is `line_too_long`; a line that is
 * not UTF-8 is `not_utf8`. A fault ends the stream for the decoder: what
 * follows cannot be trusted to be framed as the server meant, so every later
 * push answers the same fault. Pending bytes are held as a list of chunks
 * and joined once, when their line completes, and each search for a line
 * end resumes where the last one stopped: the cost is linear in the bytes
 * fed, however they are chunked and whichever line ends they use.
 *
 * @module
 */

import { err, ok, type Result } from "./result.ts";
import { joinBytes } from "./_bytes.ts";

/** The most bytes of data one event may carry: 16 MiB, as a line on stdio. */
export const MAX_EVENT_BYTES = 16 * 1024 * 1024;

/**
 * The longest line, without its line end: {@linkcode MAX_EVENT_BYTES} and 16
 * bytes of room for a field name (`data: `), so that an event of exactly the
 * cap fits on one line.
 */
export const MAX_EVENT_LINE_BYTES: number = MAX_EVENT_BYTES + 16;

/** One dispatched event. */
export type SseEvent = {
  /** The event's type: its `event` field, or `message`. */
  type: string;
  /** Its data lines joined with `\n`. */
  data: string;
  /** The last event id when it was dispatched (`""` before any). */
  lastEventId: string;
};

/**
 * Why a stream was refused. `events` holds the events dispatched in the
 * same push before the fault, in order.
 */
export type SseFault =
  | { kind: "event_too_large"; bytes: number; limit: number; message: string; events: SseEvent[] }
  | { kind: "line_too_long"; bytes: number; limit: number; message: string; events: SseEvent[] }
  | { kind: "not_utf8"; bytes: number; message: string; events: SseEvent[] };

/** What was left when the stream ended. */
export type SseEnd = {
  /** Bytes of an event that was never completed by a blank line, dropped. */
  discardedBytes: number;
};

const LF = 0x0a;
const CR = 0x0d;
const BOM = "\ufeff";
const BOM_BYTES = 3;

/**
 * Decodes a `text/event-stream` body fed in chunks with
 * {@linkcode SseDecoder.prototype.push}; {@linkcode SseDecoder.prototype.end}
 * at the end of the body.
 *
 * @example Decode a response's events
 * ```ts
 * import { SseDecoder } from "@loom/mcp/codec";
 * const decoder = new SseDecoder();
 * const body = 'id: 7\ndata: {"jsonrpc":"2.0","id":0,"result":{}}\n\n';
 * const pushed = decoder.push(new TextEncoder().encode(body));
 * console.log(pushed.ok && pushed.value[0]?.data, decoder.lastEventId); // {...} 7
 * ```
 */
export class SseDecoder {
  #parts: Uint8Array[] = [];
  #pending = 0;
  #afterCr = false;
  #first = true;
  #type = "";
  #data: string[] = [];
  #dataBytes = 0;
  #eventBytes = 0;
  #lastEventId = "";
  #retryMs: number | undefined;
  #fault: SseFault | undefined;
  #text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

  /** The last event id seen (`""` before any): what a resumption sends as `Last-Event-ID`. */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** The reconnection delay the server asked for with `retry`, in ms, if it did. */
  get retryMs(): number | undefined {
    return this.#retryMs;
  }

  /** The fault that ended the stream, if one did. */
  get fault(): SseFault | undefined {
    return this.#fault;
  }

  /** Feeds one chunk; returns the events it completed, or the fault met with those before it. */
  push(chunk: Uint8Array): Result<SseEvent[], SseFault> {
    if (this.#fault !== undefined) return err({ ...this.#fault, events: [] });
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#afterCr && chunk.length > 0) {
      this.#afterCr = false;
      if (chunk[0] === LF) start = 1;
    }
    // The next `\n` and `\r` at or after `start` (the length for none): each
    // search resumes past the last, so no byte is searched twice for either.
    let lf = -1;
    let cr = -1;
    while (start < chunk.length) {
      if (lf < start) lf = indexOrEnd(chunk, LF, start);
      if (cr < start) cr = indexOrEnd(chunk, CR, start);
      const end = lf < cr ? lf : cr;
      if (end === chunk.length) {
        const rest = chunk.length - start;
        if (this.#pending + rest > MAX_EVENT_LINE_BYTES) {
          return this.#fail(lineTooLong(this.#pending + rest, events));
        }
        // A copy: the caller may reuse its buffer for the next read.
        this.#parts.push(chunk.slice(start));
        this.#pending += rest;
        break;
      }
      const piece = chunk.subarray(start, end);
      const size = this.#pending + piece.length;
      if (size > MAX_EVENT_LINE_BYTES) return this.#fail(lineTooLong(size, events));
      let line = piece;
      if (this.#parts.length > 0) {
        this.#parts.push(piece);
        line = joinBytes(this.#parts, size);
        this.#parts = [];
        this.#pending = 0;
      }
      if (chunk[end] === CR) {
        if (end + 1 < chunk.length) {
          start = chunk[end + 1] === LF ? end + 2 : end + 1;
        } else {
          this.#afterCr = true;
          start = end + 1;
        }
      } else {
        start = end + 1;
      }
      const fault = this.#line(line, events);
      if (fault !== undefined) return this.#fail(fault);
    }
    return ok(events);
  }

  /**
   * Ends the stream. An event not completed by a blank line is discarded,
   * as the format says; how many bytes it held is returned.
   */
  end(): SseEnd {
    const discardedBytes = this.#fault === undefined ? this.#eventBytes + this.#pending : 0;
    this.#parts = [];
    this.#pending = 0;
    this.#resetEvent();
    return { discardedBytes };
  }

  #fail(fault: SseFault): Result<SseEvent[], SseFault> {
    this.#fault = fault;
    this.#parts = [];
    this.#pending = 0;
    this.#resetEvent();
    return err(fault);
  }

  #resetEvent(): void {
    this.#type = "";
    this.#data = [];
    this.#dataBytes = 0;
    this.#eventBytes = 0;
  }

  /** Interprets one line; returns a fault when the line is refused. */
  #line(bytes: Uint8Array, events: SseEvent[]): SseFault | undefined {
    const first = this.#first;
    this.#first = false;
    if (bytes.length === 0) {
      this.#dispatch(events);
      return undefined;
    }
    this.#eventBytes += bytes.length + 1;
    // A comment is dropped undecoded: it can say nothing the client reads.
    if (bytes[0] === 0x3a && !first) return undefined;
    let text: string;
    try {
      text = this.#text.decode(bytes);
    } catch {
      return {
        kind: "not_utf8",
        bytes: bytes.length,
        message: `Cannot decode an event stream line of ${bytes.length} bytes: ` +
          `it is not valid UTF-8`,
        events,
      };
    }
    // The bytes of the line before its value: a BOM, the field name, `:` and a space.
    let lead = 0;
    if (first) {
      if (text.startsWith(BOM)) {
        text = text.slice(1);
        lead = BOM_BYTES;
      }
      if (text.length === 0) {
        this.#dispatch(events);
        return undefined;
      }
    }
    if (text.startsWith(":")) return undefined;
    const colon = text.indexOf(":");
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? "" : text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "data": {
        // "data" and what follows it up to the value are ASCII: a unit is a byte.
        const valueBytes = colon === -1 ? 0 : bytes.length - lead - (text.length - value.length);
        const size = this.#dataBytes + (this.#data.length > 0 ? 1 : 0) + valueBytes;
        if (size > MAX_EVENT_BYTES) return tooLarge(size, events);
        this.#data.push(value);
        this.#dataBytes = size;
        return undefined;
      }
      case "event":
        this.#type = value;
        return undefined;
      case "id":
        if (!value.includes("\0")) this.#lastEventId = value;
        return undefined;
      case "retry":
        if (/^[0-9]+$/.test(value)) {
          const ms = Number(value);
          if (Number.isSafeInteger(ms)) this.#retryMs = ms;
        }
        return undefined;
      default:
        return undefined;
    }
  }

  #dispatch(events: SseEvent[]): void {
    if (this.#data.length > 0) {
      events.push({
        type: this.#type === "" ? "message" : this.#type,
        data: this.#data.join("\n"),
        lastEventId: this.#lastEventId,
      });
    }
    this.#resetEvent();
  }
}

/** The index of the first `byte` at or after `from`, or the chunk's length when there is none. */
function indexOrEnd(chunk: Uint8Array, byte: number, from: number): number {
  const at = chunk.indexOf(byte, from);
  return at === -1 ? chunk.length : at;
}

function tooLarge(bytes: number, events: SseEvent[]): SseFault {
  return {
    kind: "event_too_large",
    bytes,
    limit: MAX_EVENT_BYTES,
    message: `Cannot accept an event stream event with more than ${MAX_EVENT_BYTES} bytes ` +
      `of data (MAX_EVENT_BYTES); its data lines held at least ${bytes}`,
    events,
  };
}

function lineTooLong(bytes: number, events: SseEvent[]): SseFault {
  return {
    kind: "line_too_long",
    bytes,
    limit: MAX_EVENT_LINE_BYTES,
    message: `Cannot accept an event stream line of more than ${MAX_EVENT_LINE_BYTES} bytes ` +
      `(MAX_EVENT_LINE_BYTES); at least ${bytes} bytes arrived before it ended`,
    events,
  };
}

/**
 * Newline-delimited framing of the MCP stdio wire, both ways.
 *
 * Lines are split on the `\n` byte. A line's text is its bytes decoded as
 * UTF-8, less one byte order mark (U+FEFF) at its very start, which a
 * writer may put before each line and no JSON text holds; a U+FEFF anywhere
 * else is kept. That holds however the line's bytes were cut into reads.
 *
 * A line that arrives whole is decoded
 * once; one that spans reads is decoded as its chunks arrive, by a streaming
 * decoder that holds a character cut in half by a read until its rest comes,
 * and its text is joined once, when it completes. The cost is linear in the
 * bytes fed, however they are chunked, and little of it waits for the
 * newline (measured on an 8 MiB line fed in 64 KiB reads: 1.3 ms after its
 * last read, 35 ms in all, against 53 and 75 ms when its bytes were joined
 * and decoded at the newline).
 *
 * @module
 */

import { compactJson, type JsonValue } from "./json.ts";
import { err, ok, type Result } from "./result.ts";
import { decodeUtf8, encodeUtf8, withoutMark } from "./_utf8.ts";
import { type Cut, LineCutter, type LineHolder } from "./_line_cut.ts";
import { joinBytes } from "./_bytes.ts";

/** The longest line, in bytes without its newline, either side accepts: 16 MiB. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/**
 * Why a line was refused. The decoder goes on after either fault: `lines`
 * holds every intact line that completed in the same chunk, in order, so no
 * good message is lost to a bad neighbour.
 */
export type FramingFault =
  | { kind: "line_too_long"; bytes: number; limit: number; message: string; lines: string[] }
  | { kind: "not_utf8"; bytes: number; message: string; lines: string[] };

/**
 * Splits a byte stream into lines. Feed it chunks with
 * {@linkcode LineDecoder.prototype.push}; call
 * {@linkcode LineDecoder.prototype.end} at end of input for a final line
 * that has no newline. Empty lines are skipped; a trailing `\r` is dropped,
 * and so is a byte order mark that begins a line.
 *
 * @example Decode lines split across chunks
 * ```ts
 * import { LineDecoder } from "@loom/mcp/codec";
 * const decoder = new LineDecoder();
 * const bytes = new TextEncoder().encode('{"a":1}\n{"b":');
 * console.log(decoder.push(bytes)); // { ok: true, value: ['{"a":1}'] }
 * ```
 */
export class LineDecoder {
  #text = new TextHolder();
  #cutter = new LineCutter<string>(this.#text, MAX_LINE_BYTES);

  /** Bytes held for the line not yet completed. */
  get pendingBytes(): number {
    return this.#cutter.pendingBytes;
  }

  /**
   * Feeds one chunk; returns the lines it completed, or the first fault met
   * with every intact line of the chunk beside it.
   */
  push(chunk: Uint8Array): Result<string[], FramingFault> {
    const lines: string[] = [];
    this.#text.ascii = undefined;
    return decoded(this.#cutter.cut(chunk, lines), lines);
  }

  /**
   * Ends the input: returns the final line if it had no newline, or the fault
   * it makes. The decoder is empty afterwards and may be reused.
   */
  end(): Result<string[], FramingFault> {
    const lines: string[] = [];
    this.#text.ascii = undefined;
    return decoded(this.#cutter.end(lines), lines);
  }
}

function decoded(cut: Cut | undefined, lines: string[]): Result<string[], FramingFault> {
  if (cut === undefined) return ok(lines);
  if (cut.kind === "line_too_long") return err(tooLong(cut.bytes, lines));
  return err({
    kind: "not_utf8",
    bytes: cut.bytes,
    message: `Cannot decode a line of ${cut.bytes} bytes: it is not valid UTF-8`,
    lines,
  });
}

/**
 * A line as text, decoded as its chunks arrive (so a long line costs little
 * once its newline comes); when a chunk searched as text is all ASCII, its
 * lines are cut from that text, not decoded again.
 */
class TextHolder implements LineHolder<string> {
  #parts: string[] = [];
  #stream = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  // Set once the pending line failed to decode: it is refused when it ends.
  #broken = false;
  // The chunk's search text when all of it is ASCII (`null`: not worked out yet).
  ascii: string | null | undefined;

  #asciiOf(text: string | undefined): string | undefined {
    if (this.ascii === undefined) {
      this.ascii = text !== undefined && !text.includes("\uFFFD") ? text : null;
    }
    return this.ascii ?? undefined;
  }

  hold(chunk: Uint8Array, text: string | undefined, from: number, lastByte: number): void {
    if (this.#broken) return;
    const ascii = this.#asciiOf(text);
    // After an ASCII byte (or none) the streaming decoder holds no half character.
    if (ascii !== undefined && lastByte < 0x80) {
      this.#parts.push(ascii.slice(from));
      return;
    }
    try {
      this.#parts.push(this.#stream.decode(chunk.subarray(from), { stream: true }));
    } catch {
      this.#broken = true;
    }
  }

  whole(chunk: Uint8Array, text: string | undefined, from: number, to: number) {
    return this.#asciiOf(text)?.slice(from, to) ?? decodeUtf8(chunk.subarray(from, to));
  }

  complete(
    chunk: Uint8Array,
    text: string | undefined,
    from: number,
    end: number,
    options: { trimReturn: boolean; lastByte: number },
  ): string | undefined {
    let line: string | undefined;
    if (!this.#broken) {
      try {
        const ascii = this.#asciiOf(text);
        this.#parts.push(
          ascii !== undefined && options.lastByte < 0x80
            ? ascii.slice(from, end)
            : this.#stream.decode(chunk.subarray(from, end)),
        );
        line = withoutMark(this.#parts.join(""));
        if (options.trimReturn) line = line.slice(0, -1);
      } catch {
        line = undefined;
      }
    }
    this.drop();
    return line;
  }

  drop(): void {
    // A fresh decoder: the streaming one may hold half a character, or a failure.
    if (this.#parts.length > 0 || this.#broken) {
      this.#stream = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    }
    this.#parts = [];
    this.#broken = false;
  }
}

/**
 * Why a {@linkcode LineSplitter} refused a line: it ran past
 * {@linkcode MAX_LINE_BYTES}. `lines` holds every line that completed in the
 * same chunk, in order, so no good message is lost to a bad neighbour.
 */
export type SplitFault = {
  kind: "line_too_long";
  bytes: number;
  limit: number;
  message: string;
  lines: Uint8Array[];
};

/**
 * Splits a byte stream into lines as bytes, decoding nothing: for a reader
 * that hands most lines on undecoded and decodes the rest itself (the
 * client's worker). The same lines as {@linkcode LineDecoder}'s (empty lines
 * skipped, a trailing `\r` dropped, {@linkcode MAX_LINE_BYTES} enforced), but
 * UTF-8 is left for whoever decodes them, and so is a byte order mark at a
 * line's start (the library's line decoder drops it, as `LineDecoder` does).
 *
 * A line that arrived in one chunk is a view into that chunk, valid while the
 * chunk is; a line that spanned chunks is a view into a buffer of its own
 * that the splitter gave up ({@linkcode LineSplitter.owns} tells them
 * apart). A long line is gathered as it comes into a buffer that grows in
 * place (a resizable `ArrayBuffer`, reserved up to the cap), so nothing is
 * left to join when its newline arrives: an 8 MiB line left the splitter
 * 2 to 6 ms after its last read when its pieces were joined then.
 *
 * @example Split lines across chunks
 * ```ts
 * import { LineSplitter } from "@loom/mcp/codec";
 * const splitter = new LineSplitter();
 * const bytes = new TextEncoder().encode('{"a":1}\n{"b":');
 * const lines = splitter.push(bytes);
 * console.log(lines.ok && lines.value.length, splitter.pendingBytes); // 1 5
 * ```
 */
export class LineSplitter {
  #cutter = new LineCutter<Uint8Array>(new BytesHolder(), MAX_LINE_BYTES);

  /** Bytes held for the line not yet completed. */
  get pendingBytes(): number {
    return this.#cutter.pendingBytes;
  }

  /**
   * Whether `line` spanned chunks: a view into a buffer no splitter writes
   * any more, which its receiver may keep or transfer (a line in one chunk is
   * a view into that chunk).
   */
  static owns(line: Uint8Array): boolean {
    return GIVEN_UP.has(line.buffer);
  }

  /**
   * Feeds one chunk; returns the lines it completed, or the first fault met
   * with every intact line of the chunk beside it.
   */
  push(chunk: Uint8Array): Result<Uint8Array[], SplitFault> {
    const lines: Uint8Array[] = [];
    const cut = this.#cutter.cut(chunk, lines);
    return cut === undefined ? ok(lines) : err(tooLong(cut.bytes, lines));
  }

  /**
   * Ends the input: returns the final line if it had no newline, or the fault
   * it makes. The splitter is empty afterwards and may be reused.
   */
  end(): Result<Uint8Array[], SplitFault> {
    const lines: Uint8Array[] = [];
    const cut = this.#cutter.end(lines);
    return cut === undefined ? ok(lines) : err(tooLong(cut.bytes, lines));
  }
}

/**
 * A line as bytes: copies of the pieces of the line not yet complete; past
 * LONG_LINE_BYTES they are gathered in one buffer that grows in place.
 */
class BytesHolder implements LineHolder<Uint8Array> {
  #parts: Uint8Array[] = [];
  #size = 0;
  #long: Uint8Array | undefined;

  hold(chunk: Uint8Array, _text: string | undefined, from: number): void {
    const piece = chunk.subarray(from);
    const size = this.#size + piece.length;
    let long = this.#long;
    if (long === undefined && size > LONG_LINE_BYTES && RESIZABLE) {
      long = new Uint8Array(new ArrayBuffer(0, { maxByteLength: MAX_LINE_BYTES + 1 }));
      this.#long = long;
      grow(long, size);
      let offset = 0;
      for (const part of this.#parts) {
        long.set(part, offset);
        offset += part.length;
      }
      this.#parts = [];
    } else if (long !== undefined) {
      grow(long, size);
    }
    if (long !== undefined) long.set(piece, this.#size);
    else this.#parts.push(piece.slice());
    this.#size = size;
  }

  whole(chunk: Uint8Array, _text: string | undefined, from: number, to: number): Uint8Array {
    return chunk.subarray(from, to);
  }

  complete(
    chunk: Uint8Array,
    _text: string | undefined,
    from: number,
    end: number,
    options: { trimReturn: boolean },
  ): Uint8Array {
    const piece = chunk.subarray(from, end);
    const size = this.#size + piece.length;
    const long = this.#long;
    let line: Uint8Array;
    if (long === undefined) {
      this.#parts.push(piece);
      line = joinBytes(this.#parts, size);
    } else {
      grow(long, size);
      long.set(piece, this.#size);
      line = new Uint8Array(long.buffer, 0, size);
    }
    GIVEN_UP.add(line.buffer);
    this.drop();
    return options.trimReturn ? line.subarray(0, size - 1) : line;
  }

  drop(): void {
    this.#parts = [];
    this.#size = 0;
    this.#long = undefined;
  }
}

function grow(long: Uint8Array, size: number): void {
  (long.buffer as ArrayBuffer).resize(size);
}

/** Past this many bytes, a pending line is gathered in a buffer that grows in place. */
const LONG_LINE_BYTES = 64 * 1024;
/** Whether the runtime has resizable `ArrayBuffer`s (ES2024). */
const RESIZABLE = typeof ArrayBuffer.prototype.resize === "function";
/** The buffers of lines handed on by a splitter, which it no longer writes. */
const GIVEN_UP = new WeakSet<ArrayBufferLike>();

/** The fault of a line past `MAX_LINE_BYTES`, with the intact lines met beside it. */
function tooLong<Line>(
  bytes: number,
  lines: Line[],
): { kind: "line_too_long"; bytes: number; limit: number; message: string; lines: Line[] } {
  return {
    kind: "line_too_long",
    bytes,
    limit: MAX_LINE_BYTES,
    message: `Cannot accept a line of more than ${MAX_LINE_BYTES} bytes (MAX_LINE_BYTES); ` +
      `at least ${bytes} bytes arrived before a newline`,
    lines,
  };
}

/**
 * Renders one message as its wire line, as text: compact JSON plus `\n`. The
 * only place the shape of a line on the wire is decided; {@linkcode frame}
 * and {@linkcode frameRequest} are this line as bytes and in parts. Throws
 * `RangeError` for a value JSON cannot say (NaN, Infinity, too deep): that is
 * caller misuse, since every value built by this library or passed through
 * `toJson` is sayable.
 *
 * @example Frame a notification
 * ```ts
 * import { frameText } from "@loom/mcp/codec";
 * console.log(frameText({ jsonrpc: "2.0", method: "notifications/initialized" }));
 * ```
 */
export function frameText(message: JsonValue): string {
  return `${compactJson(message)}\n`;
}

/**
 * Renders one message as its wire line, as UTF-8 bytes; see
 * {@linkcode frameText}.
 *
 * @example Frame a ping
 * ```ts
 * import { frame } from "@loom/mcp/codec";
 * const bytes = frame({ jsonrpc: "2.0", id: 0, method: "ping" });
 * console.log(new TextDecoder().decode(bytes)); // {"jsonrpc":"2.0","id":0,"method":"ping"}\n
 * ```
 */
export function frame(message: JsonValue): Uint8Array {
  return encodeUtf8(frameText(message));
}

/**
 * Renders a request line around parameters already rendered as compact JSON
 * of an object: the head (up to and including `"params":`) and the tail (the
 * closing brace and `\n`). A caller that holds the parameters as text or as
 * UTF-8 bytes writes head, parameters, tail, and the line is byte for byte
 * what {@linkcode frameText} renders for the same request, without the
 * parameters being parsed or copied again (the hot path of every call).
 *
 * @example A tools/call line around its parameters
 * ```ts
 * import { frameRequest } from "@loom/mcp/codec";
 * const [head, tail] = frameRequest(3, "tools/call");
 * console.log(head + '{"name":"echo","arguments":{}}' + tail);
 * ```
 */
export function frameRequest(id: number, method: string): [head: string, tail: string] {
  if (!Number.isSafeInteger(id)) throw new RangeError(`Cannot frame a request with id ${id}`);
  // The method as frameText renders it, once per method (a client sends a
  // handful): rendering the head whole on every call cost the worker 1.3 µs.
  let quoted = METHOD_TEXT.get(method);
  if (quoted === undefined) {
    quoted = compactJson(method);
    if (METHOD_TEXT.size < METHODS_KEPT) METHOD_TEXT.set(method, quoted);
  }
  return [`{"jsonrpc":"2.0","id":${id},"method":${quoted},"params":`, "}\n"];
}

const METHOD_TEXT = new Map<string, string>();
const METHODS_KEPT = 64;

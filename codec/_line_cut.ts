// Private to codec/: the one loop that cuts a byte stream into lines, shared
// by the line decoder (lines as text) and the line splitter (lines as bytes).
// It finds the newlines, keeps the cap, drops a trailing `\r` and empty
// lines, and discards the rest of an over-long line; what a line becomes
// (text decoded as it arrives, or bytes gathered in a buffer) is its
// holder's.

import { byteText } from "./_utf8.ts";

const NEWLINE = 0x0a;
const RETURN = 0x0d;

/**
 * From this many bytes, a chunk is searched for newlines as text (measured
 * on 64 KiB of ASCII: 8 µs to decode it and search the text, 50 µs to search
 * the bytes).
 */
const TEXT_SEARCH_BYTES = 4096;

/** What a line was refused for, before the holder's wording. */
export type Cut = { kind: "line_too_long" | "not_utf8"; bytes: number };

/**
 * What becomes of a line's bytes. `chunk` is the chunk being cut, and
 * `text` its bytes as text one unit per byte when it was searched that way.
 */
export interface LineHolder<Line> {
  /**
   * Keeps `chunk[from..]`, the start (or more) of a line not yet complete;
   * `lastByte` is the last byte held before it (-1 for none).
   */
  hold(chunk: Uint8Array, text: string | undefined, from: number, lastByte: number): void;
  /** A line that arrived whole, `chunk[from..to)`; `undefined` when it is not UTF-8. */
  whole(chunk: Uint8Array, text: string | undefined, from: number, to: number): Line | undefined;
  /**
   * The pending line ended by `chunk[from..end)`, less its last byte when
   * `trimReturn`; `undefined` when it is not UTF-8. `lastByte` is the last
   * byte held before it. The holder forgets the line.
   */
  complete(
    chunk: Uint8Array,
    text: string | undefined,
    from: number,
    end: number,
    options: { trimReturn: boolean; lastByte: number },
  ): Line | undefined;
  /** Forgets the pending line. */
  drop(): void;
}

/** Cuts chunks into lines for a {@linkcode LineHolder}; see `framing.ts`. */
export class LineCutter<Line> {
  #holder: LineHolder<Line>;
  #limit: number;
  #pending = 0;
  #lastByte = -1;
  // Set while the rest of an over-long line is being discarded.
  #skipping = false;

  /** A cutter whose lines are at most `limit` bytes, without their newline. */
  constructor(holder: LineHolder<Line>, limit: number) {
    this.#holder = holder;
    this.#limit = limit;
  }

  /** Bytes held for the line not yet completed. */
  get pendingBytes(): number {
    return this.#pending;
  }

  /**
   * Cuts one chunk: the lines it completes go to `lines`, in order; the first
   * refusal met is returned (every other line of the chunk is still cut).
   */
  cut(chunk: Uint8Array, lines: Line[]): Cut | undefined {
    const holder = this.#holder;
    let fault: Cut | undefined;
    let start = 0;
    // The runtime's text search is several times faster than its byte search.
    const text = chunk.length >= TEXT_SEARCH_BYTES ? byteText(chunk) : undefined;
    while (start < chunk.length) {
      const end = text === undefined ? chunk.indexOf(NEWLINE, start) : text.indexOf("\n", start);
      if (end === -1) {
        const rest = chunk.length - start;
        if (this.#skipping) break;
        if (this.#pending + rest > this.#limit + 1) {
          // One byte of slack: a line of exactly the cap may still end in `\r\n`.
          fault ??= { kind: "line_too_long", bytes: this.#pending + rest };
          this.#skipping = true;
          this.#drop();
        } else {
          holder.hold(chunk, text, start, this.#lastByte);
          this.#pending += rest;
          this.#lastByte = chunk[chunk.length - 1] ?? -1;
        }
        break;
      }
      const from = start;
      start = end + 1;
      if (this.#skipping) {
        this.#skipping = false;
        continue;
      }
      const size = this.#pending + (end - from);
      if (size > this.#limit + 1) {
        fault ??= { kind: "line_too_long", bytes: size };
        this.#drop();
        continue;
      }
      const last = end > from ? chunk[end - 1] : this.#lastByte;
      const length = size > 0 && last === RETURN ? size - 1 : size;
      if (length > this.#limit) {
        fault ??= { kind: "line_too_long", bytes: length };
        this.#drop();
        continue;
      }
      if (length === 0) {
        this.#drop();
        continue;
      }
      let line: Line | undefined;
      if (this.#pending === 0) {
        line = holder.whole(chunk, text, from, from + length);
      } else {
        line = holder.complete(chunk, text, from, end, {
          trimReturn: length !== size,
          lastByte: this.#lastByte,
        });
        this.#pending = 0;
        this.#lastByte = -1;
      }
      if (line === undefined) fault ??= { kind: "not_utf8", bytes: length };
      else lines.push(line);
    }
    return fault;
  }

  /** Ends the input: the final line without a newline is cut as if it had one. */
  end(lines: Line[]): Cut | undefined {
    if (this.#skipping || this.#pending === 0) {
      this.#skipping = false;
      this.#drop();
      return undefined;
    }
    return this.cut(new Uint8Array([NEWLINE]), lines);
  }

  #drop(): void {
    if (this.#pending > 0) this.#holder.drop();
    this.#pending = 0;
    this.#lastByte = -1;
  }
}

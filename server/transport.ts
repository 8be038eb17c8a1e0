/**
 * The seam between the serve loop and its channel: one line in, one line
 * out. Production is stdin and stdout ({@linkcode stdioTransport}); tests and
 * users' own suites drive the whole loop with {@linkcode ReplayTransport}, no
 * process needed.
 *
 * Both cut input with the codec's `LineSplitter` and decode each line on its
 * own: a line past `MAX_LINE_BYTES` or one that is not UTF-8 is read as a
 * `bad_line` (each non-UTF-8 line in its place among the others), which the
 * loop answers and goes past; only a failed read ends the input early.
 *
 * @module
 */

import type { JsonValue } from "../codec/json.ts";
import { err, ok, type Result } from "../codec/result.ts";
import { LineSplitter } from "../codec/framing.ts";
import { decodeUtf8 } from "../codec/_utf8.ts";

/** How the channel itself failed; the loop stops at either. */
export type TransportFailure =
  | {
    kind: "read_failed";
    /** What the read reported, and what to check (is stdin still open?). */
    message: string;
  }
  | {
    kind: "write_failed";
    /** What the write reported: the client usually closed stdout by exiting. */
    message: string;
  };

/** One read from the channel: a line, a line that could not be read as text, or the end. */
export type LineRead =
  | { kind: "line"; line: string }
  | { kind: "bad_line"; message: string }
  | { kind: "end" };

/**
 * The channel a server speaks over. `readLine` settles with the next line
 * (never with its newline), a `bad_line`, or `end` once the input is done;
 * `writeLine` writes framed bytes: one or more whole lines, each compact JSON
 * ending in `\n` as built by the codec's `frame` (replies that are ready
 * together are written together). The loop never calls `writeLine` twice at
 * once. `network` names what carries the lines for a trace's
 * `network.transport`: `pipe` (stdio, the default) or `tcp` (HTTP).
 */
export type LineTransport = {
  readLine(): Promise<Result<LineRead, TransportFailure>>;
  writeLine(frame: Uint8Array): Promise<Result<void, TransportFailure>>;
  readonly network?: "pipe" | "tcp";
};

/** Bytes asked of stdin per read. */
export const STDIN_READ_BYTES = 64 * 1024;

/**
 * The production transport: lines from stdin, lines to stdout. Nothing else
 * in this library writes to stdout, so the wire carries only protocol lines;
 * a tool must not write there either (`console.log` in a tool corrupts the
 * wire; use the tool context's `stderr`).
 *
 * @example Serve over stdio
 * ```ts ignore
 * import { serve, stdioTransport } from "@loom/mcp/server";
 * await serve({ name: "demo", version: "1.0.0", tools: [] }, stdioTransport());
 * ```
 */
export function stdioTransport(): LineTransport {
  const buffer = new Uint8Array(STDIN_READ_BYTES);
  const reader = new LineReader(async () => {
    const count = await Deno.stdin.read(buffer);
    return count === null ? null : buffer.subarray(0, count);
  });
  return {
    readLine: () => reader.next(),
    async writeLine(frame: Uint8Array): Promise<Result<void, TransportFailure>> {
      try {
        let written = 0;
        while (written < frame.length) written += await Deno.stdout.write(frame.subarray(written));
        return ok(undefined);
      } catch (error) {
        return err({
          kind: "write_failed",
          message: `Cannot write to stdout: ${reason(error)}; the client has probably exited`,
        });
      }
    },
  };
}

/** Options of a {@linkcode ReplayTransport}. */
export type ReplayOptions = {
  /** Keep the input open after the script, for lines fed later with `feed`; `finish` ends it. */
  open?: boolean;
  /** Lines accepted before every further write fails with `write_failed`. */
  failWritesAfter?: number;
};

/**
 * A scripted channel for tests: the script is the input (a string is a line,
 * a newline is added; a `Uint8Array` is raw bytes, fed as is), and every
 * line the server writes is kept in `written`.
 *
 * @example Drive a server with two lines
 * ```ts
 * import { ReplayTransport, serve } from "@loom/mcp/server";
 * const transport = new ReplayTransport([
 *   '{"jsonrpc":"2.0","id":1,"method":"ping"}',
 *   '{"jsonrpc":"2.0","method":"notifications/initialized"}',
 * ]);
 * const end = await serve({ name: "demo", version: "1.0.0", tools: [] }, transport);
 * console.log(end.kind, transport.written); // end_of_input [ '{"jsonrpc":"2.0","id":1,"result":{}}' ]
 * ```
 */
export class ReplayTransport implements LineTransport {
  #chunks: Uint8Array[] = [];
  #open: boolean;
  #wake: (() => void) | undefined;
  #written: string[] = [];
  #writeWaiters: { count: number; resolve: () => void }[] = [];
  #failAfter: number;
  #reader: LineReader;
  #text = new TextDecoder();

  /** Creates a replay of `script`; see {@linkcode ReplayOptions}. */
  constructor(script: readonly (string | Uint8Array)[] = [], options: ReplayOptions = {}) {
    this.#open = options.open ?? false;
    this.#failAfter = options.failWritesAfter ?? Infinity;
    this.#append(script);
    this.#reader = new LineReader(() => this.#nextChunk());
  }

  /** Every line written so far, without its newline. */
  get written(): readonly string[] {
    return this.#written;
  }

  /**
   * Every line written so far, parsed into plain objects (integers past 2^53
   * as exact `bigint`s); a line that is not JSON comes back as its string.
   */
  messages(): JsonValue[] {
    return this.#written.map((line) => {
      try {
        return JSON.parse(line, exactInteger) as JsonValue;
      } catch {
        return line;
      }
    });
  }

  /** Adds input after the script. Throws `TypeError` once the input has been finished. */
  feed(...entries: (string | Uint8Array)[]): void {
    if (!this.#open) throw new TypeError("Cannot feed a replay whose input is finished");
    this.#append(entries);
    this.#wake?.();
  }

  /** Ends the input: the server reads `end` after what was fed. */
  finish(): void {
    this.#open = false;
    this.#wake?.();
  }

  /** Settles once at least `count` lines have been written. */
  waitForWrites(count: number): Promise<void> {
    if (this.#written.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#writeWaiters.push({ count, resolve }));
  }

  /** Reads the next line of the script. */
  readLine(): Promise<Result<LineRead, TransportFailure>> {
    return this.#reader.next();
  }

  /** Records one written line, or fails once `failWritesAfter` writes were made. */
  writeLine(frame: Uint8Array): Promise<Result<void, TransportFailure>> {
    if (this.#written.length >= this.#failAfter) {
      return Promise.resolve(err({
        kind: "write_failed",
        message:
          `Cannot write to the replay: it accepts ${this.#failAfter} writes (failWritesAfter)`,
      }));
    }
    for (const line of this.#text.decode(frame).split("\n")) {
      if (line !== "") this.#written.push(line);
    }
    this.#writeWaiters = this.#writeWaiters.filter((waiter) => {
      if (this.#written.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
    return Promise.resolve(ok(undefined));
  }

  #append(entries: readonly (string | Uint8Array)[]): void {
    const encoder = new TextEncoder();
    for (const entry of entries) {
      this.#chunks.push(typeof entry === "string" ? encoder.encode(`${entry}\n`) : entry);
    }
  }

  async #nextChunk(): Promise<Uint8Array | null> {
    while (this.#chunks.length === 0) {
      if (!this.#open) return null;
      await new Promise<void>((resolve) => this.#wake = resolve);
      this.#wake = undefined;
    }
    return this.#chunks.shift() ?? null;
  }
}

function exactInteger(_key: string, value: unknown, context?: { source?: string }): unknown {
  return typeof value === "number" && !Number.isSafeInteger(value) &&
      context?.source !== undefined && /^-?\d+$/.test(context.source)
    ? BigInt(context.source)
    : value;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Turns a source of byte chunks (`null` at end of input, a throw on a failed
 * read) into reads of lines. Each line is decoded on its own, so every line
 * that is not UTF-8 is a `bad_line` in its place; a line past the cap is a
 * `bad_line` after the intact lines of the same chunk. Reading goes on.
 */
class LineReader {
  #source: () => Promise<Uint8Array | null>;
  #splitter = new LineSplitter();
  #queue: LineRead[] = [];
  #head = 0;
  #ended = false;

  constructor(source: () => Promise<Uint8Array | null>) {
    this.#source = source;
  }

  async next(): Promise<Result<LineRead, TransportFailure>> {
    while (this.#head >= this.#queue.length) {
      if (this.#ended) return ok({ kind: "end" });
      this.#queue = [];
      this.#head = 0;
      let chunk: Uint8Array | null;
      try {
        chunk = await this.#source();
      } catch (error) {
        this.#ended = true;
        const message = error instanceof Error ? error.message : String(error);
        return err({ kind: "read_failed", message: `Cannot read the input: ${message}` });
      }
      if (chunk === null) this.#ended = true;
      // The lines are views into the chunk: decoded now, before the source reuses it.
      const split = chunk === null ? this.#splitter.end() : this.#splitter.push(chunk);
      for (const line of split.ok ? split.value : split.error.lines) {
        this.#queue.push(this.#read(line));
      }
      if (!split.ok) this.#queue.push({ kind: "bad_line", message: split.error.message });
    }
    return ok(this.#queue[this.#head++] as LineRead);
  }

  // The codec's own line decoding: fast for valid text, a byte order mark at the start dropped.
  #read(line: Uint8Array): LineRead {
    const text = decodeUtf8(line);
    return text !== undefined ? { kind: "line", line: text } : {
      kind: "bad_line",
      message: `Cannot decode a line of ${line.length} bytes: it is not valid UTF-8`,
    };
  }
}

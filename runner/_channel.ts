/**
 * The host's reading of a sandbox's stdout: byte lines, and the frames among
 * them. A frame is the per-execution nonce, a space and one JSON object, as
 * `runner/sandbox/bootstrap.ts` writes it; any other line is something the
 * program printed by itself. Everything here is decoded as untrusted input.
 *
 * @module
 */

import { err, ok, type Result } from "../codec/result.ts";

/** Splits byte chunks into lines on `\n`, holding the unfinished tail. */
export class LineSplitter {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  /** The bytes of the unfinished line held so far. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** The first `count` bytes of the unfinished line (fewer if it is shorter). */
  pendingHead(count: number): Uint8Array {
    return this.#join().subarray(0, count);
  }

  /** Feeds one chunk; returns the lines it completed, without their `\n`. */
  push(chunk: Uint8Array): Uint8Array[] {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (let index = chunk.indexOf(10); index >= 0; index = chunk.indexOf(10, start)) {
      this.#add(chunk.subarray(start, index));
      lines.push(this.#join());
      this.#pending = [];
      this.#pendingBytes = 0;
      start = index + 1;
    }
    if (start < chunk.length) this.#add(chunk.subarray(start));
    return lines;
  }

  /** The unfinished line at end of input, if any. */
  finish(): Uint8Array | undefined {
    if (this.#pendingBytes === 0) return undefined;
    const line = this.#join();
    this.#pending = [];
    this.#pendingBytes = 0;
    return line;
  }

  #add(part: Uint8Array): void {
    if (part.length === 0) return;
    this.#pending.push(part.slice());
    this.#pendingBytes += part.length;
  }

  #join(): Uint8Array {
    if (this.#pending.length === 1) return this.#pending[0] as Uint8Array;
    const all = new Uint8Array(this.#pendingBytes);
    let offset = 0;
    for (const part of this.#pending) {
      all.set(part, offset);
      offset += part.length;
    }
    this.#pending = [all];
    return all;
  }
}

/** One message of the bootstrap, decoded. Values are still in tagged form. */
export type Frame =
  | { kind: "call"; id: number; server: string; tool: string; args: unknown }
  | { kind: "log"; text: string }
  | { kind: "done"; value: unknown }
  | { kind: "threw"; name: string; message: string; stack: string }
  | { kind: "fault"; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}

/** Decodes the JSON text of one frame (what follows the nonce and space). */
export function decodeFrame(json: string): Result<Frame, string> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return err("a frame is not JSON");
  }
  if (!isRecord(value)) return err("a frame is not an object");
  switch (value.kind) {
    case "call": {
      const { id } = value;
      const server = text(value, "server");
      const tool = text(value, "tool");
      if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
        return err("a call frame has no valid id");
      }
      if (server === undefined || tool === undefined) {
        return err("a call frame has no string server or tool");
      }
      if (!Object.hasOwn(value, "args")) return err("a call frame has no arguments");
      return ok({ kind: "call", id, server, tool, args: value.args });
    }
    case "log": {
      const line = text(value, "text");
      return line === undefined ? err("a log frame has no text") : ok({ kind: "log", text: line });
    }
    case "done":
      return ok({ kind: "done", value: value.value });
    case "threw": {
      const name = text(value, "name");
      const message = text(value, "message");
      const stack = text(value, "stack");
      if (name === undefined || message === undefined || stack === undefined) {
        return err("a threw frame has no string name, message or stack");
      }
      return ok({ kind: "threw", name, message, stack });
    }
    case "fault": {
      const message = text(value, "message");
      return ok({ kind: "fault", message: message ?? "the sandbox reported a fault" });
    }
    default:
      return err("a frame has no kind the runner knows");
  }
}

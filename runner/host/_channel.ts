/**
 * The host's reading of a sandbox's stdout: the frames among its lines. A
 * frame is the per-execution nonce, a space and one JSON object, as
 * `runner/sandbox/bootstrap.ts` writes it; any other line is something the
 * program printed by itself. Lines are split by the codec's `LineDecoder`
 * (the one line splitter of the library, linear in the bytes it is fed);
 * everything here is decoded as untrusted input.
 *
 * @module
 */

import { err, ok, type Result } from "../../codec/result.ts";

/**
 * The first bytes of the line a `LineDecoder` holds unfinished,
 * kept as the same chunks pass by: enough to tell whether that line is a frame
 * (counted against the frame cap) or output (counted against the output cap)
 * before it completes. It never holds more than its size, so following a
 * stream costs one `lastIndexOf` per chunk.
 */
export class PendingHead {
  readonly #head: Uint8Array;
  #length = 0;

  /** Keeps at most `size` bytes of each unfinished line. */
  constructor(size: number) {
    this.#head = new Uint8Array(size);
  }

  /** Follows one chunk, as fed to the decoder. */
  follow(chunk: Uint8Array): void {
    const newline = chunk.lastIndexOf(0x0a);
    let start = 0;
    if (newline >= 0) {
      this.#length = 0;
      start = newline + 1;
    }
    const take = Math.min(this.#head.length - this.#length, chunk.length - start);
    if (take <= 0) return;
    this.#head.set(chunk.subarray(start, start + take), this.#length);
    this.#length += take;
  }

  /** Whether the unfinished line starts with `prefix`, as far as it goes. */
  startsLike(prefix: Uint8Array): boolean {
    const count = Math.min(this.#length, prefix.length);
    for (let index = 0; index < count; index++) {
      if (this.#head[index] !== prefix[index]) return false;
    }
    return true;
  }
}

/** One message of the bootstrap, decoded. Values are still in tagged form. */
export type ChannelMessage =
  | { kind: "call"; id: number; server: string; tool: string; args: unknown }
  | { kind: "read"; id: number; server: string; uri: string }
  | { kind: "discover"; id: number; request: unknown }
  | { kind: "log"; text: string }
  | { kind: "done"; value: unknown }
  | { kind: "exited"; code: number }
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
export function decodeChannelMessage(json: string): Result<ChannelMessage, string> {
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
      // Reads were once calls so marked; a frame that still says so is forged.
      if (value.resource !== undefined) {
        return err("a call frame carries a resource mark; a read is a read frame");
      }
      return ok({ kind: "call", id, server, tool, args: value.args });
    }
    case "read": {
      const { id } = value;
      const server = text(value, "server");
      const uri = text(value, "uri");
      if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
        return err("a read frame has no valid id");
      }
      if (server === undefined || uri === undefined) {
        return err("a read frame has no string server or uri");
      }
      return ok({ kind: "read", id, server, uri });
    }
    case "discover": {
      const { id } = value;
      if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) {
        return err("a discover frame has no valid id");
      }
      if (!Object.hasOwn(value, "request")) return err("a discover frame has no request");
      return ok({ kind: "discover", id, request: value.request });
    }
    case "log": {
      const line = text(value, "text");
      return line === undefined ? err("a log frame has no text") : ok({ kind: "log", text: line });
    }
    case "done":
      return ok({ kind: "done", value: value.value });
    case "exited": {
      const { code } = value;
      if (typeof code !== "number" || !Number.isInteger(code) || code < 0 || code > 255) {
        return err("an exited frame has no exit code from 0 to 255");
      }
      return ok({ kind: "exited", code });
    }
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

// Private to server/: the line reader both transports share, the server's
// classification of an inbound frame, and the normalisation of tool output.

import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseJson,
  stringifyJson,
} from "../codec/json.ts";
import { INVALID_REQUEST, PARSE_ERROR } from "../codec/jsonrpc.ts";
import { LineDecoder } from "../codec/framing.ts";
import { err, ok, type Result } from "../codec/result.ts";
import type { LineRead, TransportFailure } from "./transport.ts";

/**
 * Turns a source of byte chunks (`null` at end of input, a throw on a failed
 * read) into reads of lines. A framing fault becomes a `bad_line` after the
 * intact lines of the same chunk, and reading goes on.
 */
export class LineReader {
  #source: () => Promise<Uint8Array | null>;
  #decoder = new LineDecoder();
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
      const decoded = chunk === null ? this.#decoder.end() : this.#decoder.push(chunk);
      const lines = decoded.ok ? decoded.value : decoded.error.lines;
      for (const line of lines) this.#queue.push({ kind: "line", line });
      if (!decoded.ok) this.#queue.push({ kind: "bad_line", message: decoded.error.message });
    }
    return ok(this.#queue[this.#head++] as LineRead);
  }
}

/** A request id as read from the wire: echoed back exactly, huge integers included. */
export type WireId = string | number | bigint;

/** An inbound frame as a server reads it. `refused` frames are answered with an error. */
export type Frame =
  | { kind: "request"; id: WireId; method: string; params: JsonValue | undefined }
  | { kind: "notification"; method: string | undefined; params: JsonValue | undefined }
  | { kind: "refused"; id: WireId | null; code: number; message: string };

/**
 * Classifies one line the way a server must: id absent or null is a
 * notification; no `method` (or not JSON at all) is a parse error; an id
 * that is neither a string nor an integer, a wrong `jsonrpc` or a non-string
 * `method` is an invalid request.
 */
export function classifyFrame(line: string): Frame {
  const parsed = parseJson(line);
  if (!parsed.ok) return refused(null, PARSE_ERROR, `Parse error: ${parsed.error.message}`);
  const value = parsed.value;
  if (!isJsonObject(value)) {
    return refused(
      null,
      PARSE_ERROR,
      Array.isArray(value)
        ? "Parse error: a batch (JSON array) is not accepted; send one JSON-RPC object per line"
        : "Parse error: a frame must be a JSON-RPC object",
    );
  }
  if (!("method" in value)) {
    return refused(null, PARSE_ERROR, 'Parse error: a frame without "method" is not a request');
  }
  const method = value.method;
  if (!("id" in value) || value.id === null) {
    return {
      kind: "notification",
      method: typeof method === "string" ? method : undefined,
      params: value.params,
    };
  }
  const id = value.id;
  if (!isWireId(id)) {
    return refused(
      null,
      INVALID_REQUEST,
      `Invalid request: "id" is ${quote(id)}; it must be a string or an integer`,
    );
  }
  if (value.jsonrpc !== "2.0") {
    return refused(
      id,
      INVALID_REQUEST,
      `Invalid request: "jsonrpc" is ${quote(value.jsonrpc)}, not "2.0"`,
    );
  }
  if (typeof method !== "string") {
    return refused(
      id,
      INVALID_REQUEST,
      `Invalid request: "method" is ${quote(method)}, not a string`,
    );
  }
  return { kind: "request", id, method, params: value.params };
}

function refused(id: WireId | null, code: number, message: string): Frame {
  return { kind: "refused", id, code, message };
}

function isWireId(value: JsonValue | undefined): value is WireId {
  return typeof value === "string" || typeof value === "bigint" ||
    (typeof value === "number" && Number.isSafeInteger(value));
}

/** A map key that tells ids of different types apart (`1` and `"1"` are two ids). */
export function idKey(id: WireId): string {
  return `${typeof id === "string" ? "s" : "n"}:${id}`;
}

/** Quotes a received value briefly, for an error message. */
export function quote(value: unknown): string {
  if (value === undefined) return "absent";
  if (typeof value === "bigint") return `${value}`;
  if (typeof value === "object" && value !== null) {
    return Array.isArray(value) ? "an array" : "an object";
  }
  if (typeof value === "function" || typeof value === "symbol") return `a ${typeof value}`;
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

const BLOCK_TYPES = new Set(["text", "image", "audio", "resource_link", "resource"]);

/**
 * Checks what a tool's `run` returned (a JavaScript caller can return
 * anything) and renders it as the wire's `CallToolResult`.
 */
export function normalizeOutput(tool: string, output: unknown): Result<JsonObject, string> {
  if (typeof output === "string") return ok({ content: [{ type: "text", text: output }] });
  if (typeof output !== "object" || output === null || Array.isArray(output)) {
    return err(`Tool ${JSON.stringify(tool)} returned ${quote(output)}, not a result or a string`);
  }
  const record = output as Record<string, unknown>;
  const { content, structuredContent, isError, _meta } = record;
  const result: JsonObject = {};
  if (structuredContent !== undefined) {
    if (!isPlainObject(structuredContent)) {
      return err(
        `Tool ${JSON.stringify(tool)} returned "structuredContent" that is ${
          quote(structuredContent)
        }, not an object`,
      );
    }
    result.structuredContent = structuredContent as JsonObject;
  }
  if (content === undefined) {
    result.content = [];
    if (structuredContent !== undefined) {
      const text = stringifyJson(structuredContent as JsonObject);
      if (!text.ok) {
        return err(
          `Tool ${JSON.stringify(tool)} returned a result JSON cannot say: ${text.error.message}`,
        );
      }
      result.content = [{ type: "text", text: text.value }];
    }
  } else {
    if (!Array.isArray(content)) {
      return err(
        `Tool ${JSON.stringify(tool)} returned "content" that is ${quote(content)}, not an array`,
      );
    }
    for (let index = 0; index < content.length; index++) {
      const block: unknown = content[index];
      const type = isPlainObject(block) ? (block as Record<string, unknown>).type : undefined;
      if (typeof type !== "string" || !BLOCK_TYPES.has(type)) {
        return err(
          `Tool ${JSON.stringify(tool)} returned content block ${index} whose "type" is ${
            quote(type)
          }`,
        );
      }
    }
    result.content = content as JsonValue[];
  }
  if (isError !== undefined) {
    if (typeof isError !== "boolean") {
      return err(
        `Tool ${JSON.stringify(tool)} returned "isError" that is ${quote(isError)}, not a boolean`,
      );
    }
    if (isError) result.isError = true;
  }
  if (_meta !== undefined) {
    if (!isPlainObject(_meta)) {
      return err(
        `Tool ${JSON.stringify(tool)} returned "_meta" that is ${quote(_meta)}, not an object`,
      );
    }
    result._meta = _meta as JsonObject;
  }
  const { content: blocks, ...rest } = result;
  return ok({ content: blocks as JsonValue, ...rest });
}

function isPlainObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

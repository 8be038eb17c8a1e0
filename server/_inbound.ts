// Private to server/: how a server classifies one inbound line, and the key
// that tells request ids of different types apart.

import { isJsonObject, type JsonValue, parseJson } from "../codec/json.ts";
import { INVALID_REQUEST, PARSE_ERROR } from "../codec/jsonrpc.ts";
import { describeValue } from "../codec/quote.ts";

/** A request id as read from the wire: echoed back exactly, huge integers included. */
export type WireId = string | number | bigint;

/** An inbound line as a server reads it. A `refused` line is answered with an error. */
export type Inbound =
  | { kind: "request"; id: WireId; method: string; params: JsonValue | undefined }
  | { kind: "notification"; method: string | undefined; params: JsonValue | undefined }
  | { kind: "refused"; id: WireId | null; code: number; message: string };

/**
 * Classifies one line the way a server must: id absent or null is a
 * notification; no `method` (or not JSON at all) is a parse error; an id
 * that is neither a string nor an integer, a wrong `jsonrpc` or a non-string
 * `method` is an invalid request.
 */
export function classifyLine(line: string): Inbound {
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
      `Invalid request: "id" is ${describeValue(id)}; it must be a string or an integer`,
    );
  }
  if (value.jsonrpc !== "2.0") {
    return refused(
      id,
      INVALID_REQUEST,
      `Invalid request: "jsonrpc" is ${describeValue(value.jsonrpc)}, not "2.0"`,
    );
  }
  if (typeof method !== "string") {
    return refused(
      id,
      INVALID_REQUEST,
      `Invalid request: "method" is ${describeValue(method)}, not a string`,
    );
  }
  return { kind: "request", id, method, params: value.params };
}

function refused(id: WireId | null, code: number, message: string): Inbound {
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

/**
 * The JSON-RPC 2.0 envelope: classifying one inbound line, and building the
 * messages a client or server sends.
 *
 * Strict envelope, tolerant content: `jsonrpc`, `id`, `method`, `result` and
 * `error` are checked; `params`, `result` and error `data` cross raw.
 *
 * @module
 */

import {
  isJsonObject,
  type JsonObject,
  type JsonValue,
  parseJson,
  type ParseOptions,
} from "./json.ts";
import { err, ok, type Result } from "./result.ts";
import { describeValue, quote } from "./quote.ts";

/** A request id. This library mints integers from 0; a peer may use strings. 0 is an id. */
export type Id = number | string;

/** Invalid JSON was received. */
export const PARSE_ERROR: number = -32700;
/** The JSON sent is not a valid request object. */
export const INVALID_REQUEST: number = -32600;
/** The method does not exist or is not available. */
export const METHOD_NOT_FOUND: number = -32601;
/** Invalid method parameters. */
export const INVALID_PARAMS: number = -32602;
/** Internal JSON-RPC error. */
export const INTERNAL_ERROR: number = -32603;

/** A JSON-RPC error object. */
export type RpcError = { code: number; message: string; data?: JsonValue };

/** One inbound message, discriminated the way JSON-RPC discriminates. */
export type Inbound =
  | { kind: "response"; id: Id; outcome: Result<JsonValue, RpcError> }
  | { kind: "request"; id: Id; method: string; params?: JsonObject | JsonValue[] }
  | { kind: "notification"; method: string; params?: JsonObject | JsonValue[] };

/**
 * Why a line is not a message: `malformed` is not JSON at all; `bad_message`
 * is JSON of the wrong shape.
 */
export type MessageFault =
  | { kind: "malformed"; offset: number; message: string }
  /**
   * JSON, not a JSON-RPC message; `id` is the request's own when it has a
   * valid one (its `params`, `method` or `jsonrpc` being what is wrong),
   * for the error answering it.
   */
  | { kind: "bad_message"; message: string; id?: Id };

/**
 * Classifies one line received from a peer. Total: any text yields an
 * {@linkcode Inbound} or a {@linkcode MessageFault}. `options` are
 * {@linkcode parseJson}'s.
 *
 * @example Decode a response with id 0
 * ```ts
 * import { decodeInbound } from "@loom/mcp/codec";
 * const result = decodeInbound('{"jsonrpc":"2.0","id":0,"result":{}}');
 * if (result.ok && result.value.kind === "response") console.log(result.value.id); // 0
 * ```
 */
export function decodeInbound(
  line: string,
  options: ParseOptions = {},
): Result<Inbound, MessageFault> {
  const parsed = parseJson(line, options);
  if (!parsed.ok) {
    const fault = parsed.error;
    return err({
      kind: "malformed",
      offset: fault.kind === "syntax" ? fault.offset : 0,
      message: fault.message,
    });
  }
  return classify(parsed.value);
}

/**
 * Classifies one parsed JSON value as a JSON-RPC message, by the same rules as
 * {@linkcode decodeInbound}.
 *
 * @example Classify a notification
 * ```ts
 * import { classify } from "@loom/mcp/codec";
 * const result = classify({ jsonrpc: "2.0", method: "notifications/progress" });
 * if (result.ok) console.log(result.value.kind); // notification
 * ```
 */
export function classify(value: JsonValue): Result<Inbound, MessageFault> {
  if (!isJsonObject(value)) {
    return bad(Array.isArray(value) ? "a batch (array) is not accepted" : "not a JSON object");
  }
  const hasId = Object.hasOwn(value, "id");
  const id = value.id;
  const version = Object.hasOwn(value, "jsonrpc") ? value.jsonrpc : undefined;
  if (version !== "2.0") {
    // A request whose id reads is answered by it, even of another version.
    const asked = hasId && isId(id) && Object.hasOwn(value, "method") ? id : undefined;
    return bad(`"jsonrpc" is ${describeValue(version)}, not "2.0"`, asked);
  }
  if (hasId && !isId(id)) {
    return bad(`"id" is ${describeValue(id)}; it must be an integer or a string`);
  }
  if (Object.hasOwn(value, "method")) {
    const method = value.method;
    const asked = hasId ? id as Id : undefined;
    if (typeof method !== "string") {
      return bad(`"method" is ${describeValue(method)}, not a string`, asked);
    }
    if (Object.hasOwn(value, "result") || Object.hasOwn(value, "error")) {
      return bad(`a message with "method" also has "result" or "error"`, asked);
    }
    const hasParams = Object.hasOwn(value, "params");
    const params = hasParams ? value.params : undefined;
    if (hasParams && !isJsonObject(params) && !Array.isArray(params)) {
      return bad(
        `"params" of ${quote(method)} is ${describeValue(params)}, not an object`,
        asked,
      );
    }
    if (hasId) {
      return ok(
        params === undefined
          ? { kind: "request", id: id as Id, method }
          : { kind: "request", id: id as Id, method, params: params as JsonObject | JsonValue[] },
      );
    }
    return ok(
      params === undefined
        ? { kind: "notification", method }
        : { kind: "notification", method, params: params as JsonObject | JsonValue[] },
    );
  }
  if (!hasId) return bad(`a message has neither "method" nor "id"`);
  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasResult === hasError) {
    return bad(`response ${describeValue(id)} must have exactly one of "result" and "error"`);
  }
  if (hasResult) {
    return ok({ kind: "response", id: id as Id, outcome: ok(value.result as JsonValue) });
  }
  const error = decodeRpcError(value.error as JsonValue);
  if (error === undefined) {
    return bad(
      `"error" of response ${
        describeValue(id)
      } is not an object with integer "code" and string "message"`,
    );
  }
  return ok({ kind: "response", id: id as Id, outcome: err(error) });
}

function decodeRpcError(value: JsonValue): RpcError | undefined {
  if (!isJsonObject(value) || !Object.hasOwn(value, "code") || !Object.hasOwn(value, "message")) {
    return undefined;
  }
  const { code, message, data } = value;
  if (typeof code !== "number" || !Number.isInteger(code) || typeof message !== "string") {
    return undefined;
  }
  return Object.hasOwn(value, "data")
    ? { code, message, data: data as JsonValue }
    : { code, message };
}

function isId(value: JsonValue | undefined): value is Id {
  return typeof value === "string" || (typeof value === "number" && Number.isSafeInteger(value));
}

function bad(message: string, id?: Id): { ok: false; error: MessageFault } {
  const text = `Cannot decode JSON-RPC message: ${message}`;
  return err(
    id === undefined ? { kind: "bad_message", message: text } : {
      kind: "bad_message",
      message: text,
      id,
    },
  );
}

/**
 * Builds a request message.
 *
 * @example A tools/list request
 * ```ts
 * import { encodeRequest } from "@loom/mcp/codec";
 * console.log(encodeRequest(1, "tools/list", {})); // { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }
 * ```
 */
export function encodeRequest(id: Id, method: string, params?: JsonObject): JsonObject {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/**
 * Builds a notification message (no id, no reply expected).
 *
 * @example The initialized notification
 * ```ts
 * import { encodeNotification } from "@loom/mcp/codec";
 * console.log(encodeNotification("notifications/initialized"));
 * ```
 */
export function encodeNotification(method: string, params?: JsonObject): JsonObject {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

/**
 * Builds a success response. The id is echoed as given (`null` only where no
 * id could be read).
 *
 * @example Answer a ping
 * ```ts
 * import { encodeResult } from "@loom/mcp/codec";
 * console.log(encodeResult(7, {}));
 * ```
 */
export function encodeResult(id: Id | bigint | null, result: JsonValue): JsonObject {
  return { jsonrpc: "2.0", id, result };
}

/**
 * Builds an error response. The id is echoed as given, or `null` where the
 * request's id could not be read.
 *
 * @example Refuse a method
 * ```ts
 * import { encodeError, METHOD_NOT_FOUND } from "@loom/mcp/codec";
 * console.log(encodeError(3, { code: METHOD_NOT_FOUND, message: "Method not found" }));
 * ```
 */
export function encodeError(id: Id | bigint | null, error: RpcError): JsonObject {
  const body: JsonObject = error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data };
  return { jsonrpc: "2.0", id, error: body };
}

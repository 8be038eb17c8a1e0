/**
 * The Streamable HTTP binding of MCP, its pure half: what one outgoing
 * JSON-RPC message says about the HTTP request that carries it (its method,
 * id, name and the protocol version of its envelope), the headers each era
 * asks for, the encoding of a header value that HTTP cannot carry as it is,
 * and a bounded, printable excerpt of an answer's body for a person.
 *
 * Two eras share one endpoint. A modern-era message (2026-07-28 and
 * later) carries its version in `params._meta`, and its POST says it again
 * in `MCP-Protocol-Version`, with `Mcp-Method` and, for the methods that
 * name something, `Mcp-Name`. A legacy-era session (2025-03-26 to
 * 2025-11-25) sends `initialize` bare, then `Mcp-Session-Id` (when the
 * server gave one) and `MCP-Protocol-Version` (the negotiated version) on
 * everything after it.
 *
 * @module
 */

import { isJsonObject, type JsonValue, parseJson } from "./json.ts";
import { META_PROTOCOL_VERSION } from "./protocol.ts";

/** The header naming a request's protocol version. */
export const PROTOCOL_VERSION_HEADER = "MCP-Protocol-Version";
/** The header naming a modern-era request's method. */
export const METHOD_HEADER = "Mcp-Method";
/** The header naming what a modern-era request is about (a tool, a resource, a prompt). */
export const NAME_HEADER = "Mcp-Name";
/** The header carrying a legacy-era session's id. */
export const SESSION_HEADER = "Mcp-Session-Id";
/** The header a resumption carries: the last event id seen on the dropped stream. */
export const LAST_EVENT_ID_HEADER = "Last-Event-ID";
/** What every POST accepts: one JSON body or an event stream. */
export const ACCEPT_BOTH = "application/json, text/event-stream";

/** The most bytes of an answer's body quoted in a message: 512. */
export const BODY_EXCERPT_BYTES = 512;

const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";

/** The methods whose `Mcp-Name` mirrors a parameter, and which parameter. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

/** What an outgoing message says about the HTTP request that carries it. */
export type OutgoingMessage = {
  /** `request`, `notification`, a `response` (to a server's request), or `unreadable`. */
  kind: "request" | "notification" | "response" | "unreadable";
  /** The request's id, for a request or a response. */
  id?: number | string;
  /** The method, for a request or a notification. */
  method?: string;
  /** `params.name` or `params.uri`, for the methods that name something. */
  name?: string;
  /** The protocol version of a modern-era envelope in `params._meta`. */
  version?: string;
  /** `params.requestId` of a `notifications/cancelled`. */
  cancels?: number | string;
  /** `params.arguments` of a `tools/call`. */
  arguments?: JsonValue;
};

/**
 * Reads an outgoing message (one compact JSON line, without its newline).
 * Total: anything that is not a JSON-RPC message is `unreadable`.
 *
 * @example A modern-era tools/call
 * ```ts
 * import { readOutgoing } from "@loom/mcp/codec";
 * const line = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":' +
 *   '{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo"}}';
 * console.log(readOutgoing(line)); // { kind: "request", id: 3, method: "tools/call", ... }
 * ```
 */
export function readOutgoing(text: string): OutgoingMessage {
  const parsed = parseJson(text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return { kind: "unreadable" };
  const message = parsed.value;
  const id = message.id;
  const hasId = typeof id === "number" || typeof id === "string";
  const method = message.method;
  if (typeof method !== "string") {
    return hasId ? { kind: "response", id } : { kind: "unreadable" };
  }
  const out: OutgoingMessage = { kind: hasId ? "request" : "notification", method };
  if (hasId) out.id = id;
  const params = message.params;
  if (!isJsonObject(params)) return out;
  const meta = params._meta;
  if (isJsonObject(meta) && typeof meta[META_PROTOCOL_VERSION] === "string") {
    out.version = meta[META_PROTOCOL_VERSION] as string;
  }
  const source = NAME_SOURCE[method];
  const name = source === undefined ? undefined : params[source];
  if (typeof name === "string") out.name = name;
  if (method === "tools/call" && params.arguments !== undefined) out.arguments = params.arguments;
  const cancels = params.requestId;
  if (
    method === "notifications/cancelled" &&
    (typeof cancels === "number" || typeof cancels === "string")
  ) {
    out.cancels = cancels;
  }
  return out;
}

/**
 * Encodes a value for an HTTP header as the specification says: a value of
 * visible ASCII (spaces and tabs inside it allowed) passes as it is;
 * anything else (other characters, whitespace at either end, an empty
 * value, a value that already looks encoded) is `=?base64?<UTF-8 in
 * base64>?=`.
 *
 * @example A tool name that is not ASCII
 * ```ts
 * import { encodeHeaderValue } from "@loom/mcp/codec";
 * console.log(encodeHeaderValue("echo"), encodeHeaderValue("é")); // echo =?base64?w6k=?=
 * ```
 */
export function encodeHeaderValue(value: string): string {
  if (!needsBase64(value)) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `${BASE64_PREFIX}${btoa(binary)}${BASE64_SUFFIX}`;
}

function needsBase64(value: string): boolean {
  if (value.length === 0 || value !== value.trim()) return true;
  if (value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX)) return true;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code !== 0x09 && (code < 0x20 || code > 0x7e)) return true;
  }
  return false;
}

/**
 * The headers a modern-era POST carries for one message: its version,
 * its method and, for `tools/call`, `prompts/get` and `resources/read`, the
 * name it is about. Nothing for a message without an envelope.
 *
 * @example Headers of a tools/call
 * ```ts
 * import { modernHeaders } from "@loom/mcp/codec";
 * const headers = modernHeaders({
 *   kind: "request",
 *   id: 1,
 *   method: "tools/call",
 *   name: "echo",
 *   version: "2026-07-28",
 * });
 * console.log(headers); // [["MCP-Protocol-Version", "2026-07-28"], ...]
 * ```
 */
export function modernHeaders(message: OutgoingMessage): Array<[string, string]> {
  if (message.version === undefined || message.method === undefined) return [];
  const headers: Array<[string, string]> = [
    [PROTOCOL_VERSION_HEADER, encodeHeaderValue(message.version)],
    [METHOD_HEADER, encodeHeaderValue(message.method)],
  ];
  if (message.name !== undefined) headers.push([NAME_HEADER, encodeHeaderValue(message.name)]);
  return headers;
}

/**
 * A body's first bytes as printable text for a message: decoded leniently,
 * every control character shown as `\u{...}`, capped at
 * {@linkcode BODY_EXCERPT_BYTES} bytes, with `...` when cut.
 *
 * @example An HTML error page
 * ```ts
 * import { bodyExcerpt } from "@loom/mcp/codec";
 * console.log(bodyExcerpt(new TextEncoder().encode("<h1>Nope</h1>\n"))); // <h1>Nope</h1>\u{a}
 * ```
 */
export function bodyExcerpt(bytes: Uint8Array): string {
  const cut = bytes.length > BODY_EXCERPT_BYTES;
  const text = new TextDecoder().decode(bytes.subarray(0, BODY_EXCERPT_BYTES));
  let out = "";
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0x2028 || code === 0x2029
      ? `\\u{${code.toString(16)}}`
      : char;
  }
  return cut ? `${out}...` : out;
}

/** Whether a `Content-Type` value is `type` (parameters and case aside). */
export function isMediaType(contentType: string | null, type: string): boolean {
  if (contentType === null) return false;
  return contentType.split(";")[0]?.trim().toLowerCase() === type;
}

/**
 * A URL as it may be shown: origin and path only, so that credentials in
 * its user part or a token in its query never reach a message.
 *
 * @example A URL with a token in its query
 * ```ts
 * import { displayUrl } from "@loom/mcp/codec";
 * console.log(displayUrl(new URL("https://u:p@example.com/mcp?key=secret"))); // https://example.com/mcp
 * ```
 */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Turns a JSON body into one line for the line reader: in JSON a raw line
 * break can only be whitespace (inside a string it is not JSON at all), so
 * a pretty-printed body means the same on one line.
 */
export function jsonOnOneLine(text: string): string {
  return text.includes("\n") || text.includes("\r") ? text.replace(/[\r\n]/g, " ") : text;
}

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
import { classify } from "./jsonrpc.ts";
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

/** The methods whose `Mcp-Name` mirrors a parameter, and which parameter (a map: no inherited keys). */
const NAME_SOURCE: ReadonlyMap<string, string> = new Map([
  ["tools/call", "name"],
  ["prompts/get", "name"],
  ["resources/read", "uri"],
]);

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
 * Total: anything that is not a JSON-RPC message, by the rules
 * `decodeInbound` reads one by (`"jsonrpc": "2.0"`, an integer or string
 * id, exactly one of `result` and `error` on a response), is `unreadable`.
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
  const classified = parsed.ok ? classify(parsed.value) : undefined;
  if (classified === undefined || !classified.ok) return { kind: "unreadable" };
  const message = classified.value;
  if (message.kind === "response") return { kind: "response", id: message.id };
  const { method } = message;
  const out: OutgoingMessage = message.kind === "request"
    ? { kind: "request", method, id: message.id }
    : { kind: "notification", method };
  const params = message.params;
  if (!isJsonObject(params)) return out;
  const meta = params._meta;
  if (isJsonObject(meta) && typeof meta[META_PROTOCOL_VERSION] === "string") {
    out.version = meta[META_PROTOCOL_VERSION] as string;
  }
  const source = NAME_SOURCE.get(method);
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;

/**
 * Turns a JSON body into one line for the line reader, without changing
 * what it says: a raw line break outside a string is whitespace, and
 * becomes a space; one inside a string is not JSON at all, and becomes a
 * NUL, which JSON forbids there too, so the reader refuses the line at the
 * same offset as the body (rather than read a string the server never
 * wrote). Linear; a body without line breaks is returned as it is.
 *
 * @example A pretty-printed body
 * ```ts
 * import { jsonOnOneLine } from "@loom/mcp/codec";
 * console.log(jsonOnOneLine('{\n  "a": 1\n}')); // {   "a": 1 }
 * ```
 */
export function jsonOnOneLine(text: string): string {
  if (!text.includes("\n") && !text.includes("\r")) return text;
  const parts: string[] = [];
  let from = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE || code === RETURN) {
      parts.push(text.slice(from, index), inString ? "\0" : " ");
      from = index + 1;
    } else if (code === QUOTE) {
      inString = !inString;
    } else if (code === BACKSLASH && inString) {
      // An escape takes the next character, unless that is a raw break (not JSON either way).
      const next = text.charCodeAt(index + 1);
      if (next !== NEWLINE && next !== RETURN) index++;
    }
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/**
 * A JSON body's bytes as one wire line, with its `\n`: what
 * {@linkcode jsonOnOneLine} makes of its text, as UTF-8 (the quotes,
 * backslashes and line breaks it reads are ASCII, never part of another
 * character). Always a copy, so the body's buffer stays the caller's.
 *
 * @example A pretty-printed body as a line
 * ```ts
 * import { jsonLineBytes } from "@loom/mcp/codec";
 * const line = jsonLineBytes(new TextEncoder().encode('{\n  "a": "x"\n}'));
 * console.log(new TextDecoder().decode(line)); // {   "a": "x" }\n
 * ```
 */
export function jsonLineBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const line = new Uint8Array(bytes.length + 1);
  line.set(bytes);
  line[bytes.length] = NEWLINE;
  if (bytes.indexOf(NEWLINE) === -1 && bytes.indexOf(RETURN) === -1) return line;
  let inString = false;
  for (let index = 0; index < bytes.length; index++) {
    const code = line[index];
    if (code === NEWLINE || code === RETURN) {
      line[index] = inString ? 0 : SPACE;
    } else if (code === QUOTE) {
      inString = !inString;
    } else if (code === BACKSLASH && inString) {
      const next = line[index + 1];
      if (next !== NEWLINE && next !== RETURN) index++;
    }
  }
  return line;
}

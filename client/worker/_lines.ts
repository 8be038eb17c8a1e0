// Private to client/worker/: the lines a machine reads from its server, split and
// routed (`LineRouter`: answers wanted raw leave as bytes), decoded as
// JSON-RPC or refused with a message a person can act on (a process that is
// not an MCP server is named so), and the lines it
// writes to its server, rendered by
// the codec's one wire writer (`frameText`, `frameRequest`). In a
// modern session every request and notification carries the `_meta`
// envelope, rendered once per session and put first in the parameters, which
// otherwise reach the pipe as they came (text or UTF-8 bytes).

import {
  classify,
  encodeError,
  encodeNotification,
  encodeResult,
  type Id,
  type Inbound,
  METHOD_NOT_FOUND,
} from "../../codec/jsonrpc.ts";
import { type JsonObject, parseJson } from "../../codec/json.ts";
import { META_CLIENT_CAPABILITIES } from "../../codec/protocol.ts";
import { quote } from "../../codec/quote.ts";
import { DISCOVER_METHOD, TASKS_EXTENSION } from "../../codec/stateless.ts";
import { malformedLine } from "../thread/outcomes.ts";
import { frameRequest, frameText, LineSplitter, type SplitFault } from "../../codec/framing.ts";
import { peekResponseId, peekResponseIdBytes } from "../../codec/peek.ts";
import type { Result } from "../../codec/result.ts";
import { decodeUtf8 } from "../../codec/_utf8.ts";
import type { Pending, RequestExtra } from "./_pending.ts";
import { PARAMS_META_LEAD } from "../thread/to_worker.ts";

const OPEN_BRACE = 0x7b;
const UNDERSCORE = 0x5f;
const LEAD_BYTES = new TextEncoder().encode(PARAMS_META_LEAD);

/** Whether parameters as bytes begin with the main thread's own `_meta`. */
function leadsWithMeta(params: Uint8Array): boolean {
  if (params.length < LEAD_BYTES.length) return false;
  for (let index = 0; index < LEAD_BYTES.length; index++) {
    if (params[index] !== LEAD_BYTES[index]) return false;
  }
  return true;
}

/** Renders a machine's outgoing lines into a sink that writes them in order. */
export class LineWriter {
  #write: (data: string | Uint8Array) => void;
  #meta = "";
  #metaObject: JsonObject | undefined;
  // The envelope's fields without braces, and the same declaring the tasks extension.
  #inner = "";
  #taskInner = "";

  constructor(write: (data: string | Uint8Array) => void) {
    this.#write = write;
  }

  /** From now on every request and notification carries this `_meta` envelope. */
  envelope(meta: JsonObject): void {
    this.#metaObject = meta;
    this.#meta = `"_meta":${frameText(meta).slice(0, -1)}`;
    this.#inner = frameText(meta).slice(1, -2);
    const extended = {
      ...meta,
      [META_CLIENT_CAPABILITIES]: { extensions: { [TASKS_EXTENSION]: {} } },
    };
    this.#taskInner = frameText(extended).slice(1, -2);
  }

  /**
   * Writes a long call's request: its parameters (compact JSON of an object,
   * as text) with `extra`'s fields first, and its `_meta` holding the
   * envelope (declaring the tasks extension when asked) and `extra.meta`.
   */
  requestWith(id: number, method: string, params: string, extra: RequestExtra): void {
    const parts: string[] = [];
    const envelope = this.#meta === "" ? "" : extra.tasks ? this.#taskInner : this.#inner;
    const meta = [envelope, extra.meta ?? ""].filter((part) => part !== "").join(",");
    const [head, tail] = frameRequest(id, method);
    if (params.startsWith(PARAMS_META_LEAD)) {
      // The main thread's `_meta` (trace context) takes these fields in.
      if (extra.fields !== undefined && extra.fields !== "") parts.push(extra.fields);
      const inner = meta === "" ? "" : `${meta},`;
      parts.push(`"_meta":{${inner}${params.slice(PARAMS_META_LEAD.length)}`);
      this.#write(`${head}{${parts.join(",")}${tail}`);
      return;
    }
    if (meta !== "") parts.push(`"_meta":{${meta}}`);
    if (extra.fields !== undefined && extra.fields !== "") parts.push(extra.fields);
    const rest = params === "" ? "}" : params.slice(1);
    const body = `{${parts.join(",")}${parts.length > 0 && rest !== "}" ? "," : ""}${rest}`;
    this.#write(head + body + tail);
  }

  /** Writes a request; `params` is compact JSON of an object, as text or bytes, or `""`. */
  request(id: number, method: string, params: string | Uint8Array): void {
    const empty = params === "" || params === "{}" ||
      (typeof params !== "string" && params.length === 2);
    if (this.#meta === "") {
      if (params === "") {
        this.#write(frameText({ jsonrpc: "2.0", id, method }));
        return;
      }
      const [head, tail] = frameRequest(id, method);
      // Text goes to the transport as one piece; bytes between head and tail.
      if (typeof params === "string") {
        this.#write(head + params + tail);
        return;
      }
      this.#write(head);
      this.#write(params);
      this.#write(tail);
      return;
    }
    const [head, tail] = frameRequest(id, method);
    if (empty) {
      this.#write(`${head}{${this.#meta}}${tail}`);
      return;
    }
    // The envelope goes first; the parameters follow without their opening
    // brace, or, when they lead with a `_meta` of their own, join it.
    if (typeof params === "string") {
      if (params.charCodeAt(2) === UNDERSCORE && params.startsWith(PARAMS_META_LEAD)) {
        const rest = params.slice(PARAMS_META_LEAD.length);
        this.#write(`${head}${PARAMS_META_LEAD}${this.#inner},${rest}${tail}`);
        return;
      }
      this.#write(`${head}{${this.#meta},${params.slice(1)}${tail}`);
      return;
    }
    if (leadsWithMeta(params)) {
      this.#write(`${head}${PARAMS_META_LEAD}${this.#inner},`);
      this.#write(params.subarray(LEAD_BYTES.length));
      this.#write(tail);
      return;
    }
    this.#write(`${head}{${this.#meta},`);
    this.#write(params[0] === OPEN_BRACE ? params.subarray(1) : params);
    this.#write(tail);
  }

  /** Writes a notification, with the envelope in a modern session. */
  notification(method: string, params?: JsonObject): void {
    const meta = this.#metaObject;
    const body = meta === undefined ? params : { _meta: meta, ...params };
    this.#write(frameText(encodeNotification(method, body)));
  }

  /**
   * Answers a server's request: `ping` with the empty result MCP asks of
   * every peer, anything else with -32601, since this client serves nothing else.
   */
  refuse(id: Id, method: string): void {
    if (method === "ping") {
      this.#write(frameText(encodeResult(id, {})));
      return;
    }
    this.#write(frameText(encodeError(id, {
      code: METHOD_NOT_FOUND,
      message: `Method not found: this client serves no requests (${method.slice(0, 100)})`,
    })));
  }
}

/** How a line read from a server goes on: handed on raw, as text, or refused. */
export type Read =
  | { kind: "raw"; id: number; pending: Pending }
  | { kind: "text"; line: string }
  | { kind: "not_utf8"; message: string };

/**
 * Splits what a server writes into lines, and routes each: a response whose
 * request wants it raw is handed on as its bytes (found from the line's ends
 * by `peekResponseIdBytes`, or once decoded by `peekResponseId`), undecoded
 * even as UTF-8; any other line is decoded to text here.
 */
export class LineRouter {
  #splitter = new LineSplitter();

  /** Feeds one chunk; see `LineSplitter.push`. */
  push(chunk: Uint8Array): Result<Uint8Array[], SplitFault> {
    return this.#splitter.push(chunk);
  }

  /** Routes one line; `takeRaw` takes the request of an id out if it wants its answer raw. */
  route(bytes: Uint8Array, takeRaw: (id: number) => Pending | undefined): Read {
    const quick = peekResponseIdBytes(bytes);
    if (quick !== undefined) {
      const pending = takeRaw(quick);
      if (pending !== undefined) return { kind: "raw", id: quick, pending };
    }
    const line = decodeUtf8(bytes);
    if (line === undefined) {
      return {
        kind: "not_utf8",
        message: `Cannot decode a line of ${bytes.length} bytes: it is not valid UTF-8`,
      };
    }
    if (quick === undefined) {
      const id = peekResponseId(line);
      const pending = id === undefined ? undefined : takeRaw(id);
      if (pending !== undefined && id !== undefined) return { kind: "raw", id, pending };
    }
    return { kind: "text", line };
  }
}

/** One line from a server: a JSON-RPC message, or why it is not one. */
export type ServerLine = Inbound | { kind: "malformed"; message: string };

/**
 * Decodes one line a server wrote; `server` names it in the message of a bad
 * line. While a start request is waiting (`starting` names it), a line that
 * is not JSON-RPC, or that request written back, says the process is not an
 * MCP server.
 */
export function readServerLine(
  line: string,
  server: string,
  starting: string | undefined,
): ServerLine {
  const parsed = parseJson(line);
  const inbound = parsed.ok ? classify(parsed.value) : parsed;
  if (inbound.ok) {
    const message = inbound.value;
    // A process that writes its input back (`cat`) sends our own request.
    if (
      starting !== undefined && message.kind === "request" &&
      (message.method === "initialize" || message.method === DISCOVER_METHOD)
    ) {
      return { kind: "malformed", message: notAnMcpServer(server, line, "echo", message.method) };
    }
    return message;
  }
  if (starting !== undefined) {
    return { kind: "malformed", message: notAnMcpServer(server, line, "garbage", starting) };
  }
  return { kind: "malformed", message: malformedLine(server, line, inbound.error.message) };
}

/**
 * Why a process that answered a start request with something other than MCP
 * is not an MCP server, with the line it wrote: its input written back
 * (`echo`, as `cat` does), or a line that is not JSON-RPC (`garbage`).
 */
function notAnMcpServer(
  name: string,
  line: string,
  how: "echo" | "garbage",
  method = "initialize",
): string {
  return how === "echo"
    ? `Server "${name}" is not an MCP server: it wrote back the ${method} request it was ` +
      `sent (${quote(line)}); check its command`
    : `Server "${name}" is not an MCP server: before answering ${method} it wrote ` +
      `${quote(line)}, which is not JSON-RPC; check its command`;
}

/**
 * The Streamable HTTP server transport: one MCP endpoint that hands every
 * decoded JSON-RPC message to a handler and carries its answers back, in
 * both eras of the specification.
 *
 * - 2025-03-26 to 2025-11-25: `initialize` opens a session, whose id goes
 *   back in `Mcp-Session-Id` and must come with every later request (400
 *   without it, 404 once the session is gone); GET opens the session's
 *   stream of messages tied to no request; DELETE ends the session.
 * - 2026-07-28: stateless. Each POST says `MCP-Protocol-Version`, which must
 *   match its `_meta` envelope, and `Mcp-Method` (and `Mcp-Name` for the
 *   methods that name something), each checked against the body (400 with
 *   `-32020` on a mismatch); there is no session, no GET stream, and closing
 *   a request's stream cancels it.
 *
 * An answer the handler gives at once is one JSON body; one it takes longer
 * over, or that it sends messages ahead of, comes as an event stream when the
 * client accepts one, so that a client closing the stream is seen.
 *
 * Every request, whatever its method, must carry the server's bearer token
 * (401 otherwise), name the server in its `Host` when it listens on loopback,
 * and come from no `Origin` or the server's own (403 otherwise: a page that
 * DNS rebinding pointed at the server is refused before anything is read).
 *
 * Lifecycle: `listenHttp` binds at once and serves until `close()` or the
 * given signal. A request's exchange ends with its answer; its signal aborts
 * when its client goes away (its stream closed, `notifications/cancelled`
 * for its id), when its session ends, or at close. A session ends on DELETE
 * or at close, aborting its signal and ending its GET stream. `close()` ends
 * every session and stream, then waits for the listener to stop; handlers
 * still running are not waited for, and their answers are dropped.
 *
 * @module
 */

import { isJsonObject, type JsonObject, parseJson, stringifyJson } from "../../codec/json.ts";
import {
  encodeError,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
} from "../../codec/jsonrpc.ts";
import {
  LEGACY_VERSIONS,
  META_PROTOCOL_VERSION,
  MODERN_VERSIONS,
  SUPPORTED_VERSIONS,
} from "../../codec/protocol.ts";
import {
  METHOD_HEADER,
  NAME_HEADER,
  PROTOCOL_VERSION_HEADER,
  SESSION_HEADER,
} from "../../codec/streamable_http.ts";
import { UNSUPPORTED_PROTOCOL_VERSION } from "../../codec/stateless.ts";
import { describeValue } from "../../codec/quote.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import { idKey, type WireId } from "../_inbound.ts";
import { EventStream } from "./_event_stream.ts";
import {
  checkToken,
  generateToken,
  guard,
  type GuardSettings,
  isLoopback,
  ownOrigins,
  sha256,
} from "./_guard.ts";
import { decodeHeaderValue } from "./_header_value.ts";
import { MAX_HTTP_BODY_BYTES, MAX_HTTP_REQUESTS_IN_FLIGHT, MAX_HTTP_SESSIONS } from "./limits.ts";

export * from "./limits.ts";

/**
 * The JSON-RPC error code of a 2026-07-28 request whose headers do not say
 * what its body says (`HeaderMismatch`): -32020, answered with 400.
 */
export const HEADER_MISMATCH: number = -32020;

/**
 * The JSON-RPC error code of a request whose exchange ended before the
 * handler answered (its client went away, its session ended, the server
 * closed): -32800.
 */
export const REQUEST_CANCELLED: number = -32800;

/** The path of the MCP endpoint unless `path` says otherwise. */
export const DEFAULT_HTTP_PATH = "/mcp";

/** A legacy-era session as the handler sees it. */
export type ServerSession = {
  /** The id the client sends back in `Mcp-Session-Id`. */
  readonly id: string;
  /** The version the handler's `initialize` answer chose. */
  readonly protocolVersion: string;
  /** Aborted when the session ends: DELETE, or the server's close. */
  readonly signal: AbortSignal;
  /**
   * Sends a message tied to no request (a list change, a server request) on
   * the session's GET stream; false when no GET stream is open or it just
   * ended, past its backlog.
   */
  send(message: JsonObject): boolean;
};

/** One message's exchange: where it came from, and how to answer along the way. */
export type HttpExchange = {
  /** The legacy session it belongs to; undefined for a 2026-07-28 message, which has none. */
  readonly session: ServerSession | undefined;
  /**
   * The protocol version it is served in: the header's for 2026-07-28, the
   * session's after `initialize`, and for `initialize` the version it asks.
   */
  readonly protocolVersion: string;
  /** Aborted when the exchange ends before its answer (see the module's lifecycle). */
  readonly signal: AbortSignal;
  /**
   * Sends a message tied to this request ahead of its answer (progress, a
   * log, in the legacy era a server request): the answer then comes as an
   * event stream. False when the client accepts no stream, or the stream
   * has ended.
   */
  send(message: JsonObject): boolean;
};

/**
 * What the transport hands each decoded message to: a request's answer (a
 * whole JSON-RPC response, its `id` the request's) or, for a notification
 * or a client's response, anything (it is not sent). A throw or a missing
 * answer to a request is answered `-32603`.
 */
export type HttpMessageHandler = (
  message: JsonObject,
  exchange: HttpExchange,
) => Promise<JsonObject | undefined> | JsonObject | undefined;

/** Where and how to listen; everything is optional. */
export type ListenHttpOptions = {
  /** The address to bind: `127.0.0.1` unless given; any other is reachable from elsewhere. */
  hostname?: string;
  /** The port: 0 (any free one) unless given. */
  port?: number;
  /** The endpoint's path: {@linkcode DEFAULT_HTTP_PATH} unless given; any other is 404. */
  path?: string;
  /**
   * The bearer token every request must carry (printable ASCII, at least
   * `MIN_TOKEN_CHARS`); one is made when none is given, and the listener
   * says it once (`undefined` too, so `Deno.env.get("LOOM_MCP_TOKEN")` can
   * be passed as it is).
   */
  token?: string | undefined;
  /** Origins let in besides the server's own (`http://localhost:<port>` and the like). */
  allowedOrigins?: readonly string[];
  /** Closes the server when aborted. */
  signal?: AbortSignal;
};

/** A server listening, with what its clients need. */
export type HttpListener = {
  /** The endpoint, with the port actually bound. */
  readonly url: URL;
  /** The token every request must carry, as `Authorization: Bearer <token>`. */
  readonly token: string;
  /** Settles once the server has stopped. */
  readonly finished: Promise<void>;
  /** Ends every session and stream, and stops listening. */
  close(): Promise<void>;
};

/** Why the server could not listen: the address is taken, or not this machine's. */
export type ListenFailure = { kind: "listen_failed"; message: string };

/**
 * Serves `handler` over Streamable HTTP (see the module for the eras, the
 * checks and the lifecycle) and returns the listener, or why it could not
 * listen. Bounds: {@linkcode MAX_HTTP_BODY_BYTES} per body (413),
 * {@linkcode MAX_HTTP_SESSIONS} sessions and
 * {@linkcode MAX_HTTP_REQUESTS_IN_FLIGHT} requests at once (503), and
 * `MAX_STREAM_BACKLOG_BYTES` unread on a stream.
 *
 * Throws `TypeError` for a token a header cannot carry, `RangeError` for a
 * token shorter than `MIN_TOKEN_CHARS` or a port outside 0 to 65535.
 *
 * @example Answer ping, and nothing else
 * ```ts ignore
 * import { listenHttp } from "@loom/mcp/server";
 * const listening = await listenHttp((message) =>
 *   message.method === "ping" ? { jsonrpc: "2.0", id: message.id ?? null, result: {} } : undefined
 * );
 * if (listening.ok) console.error(`listening on ${listening.value.url}`);
 * ```
 */
export async function listenHttp(
  handler: HttpMessageHandler,
  options: ListenHttpOptions = {},
): Promise<Result<HttpListener, ListenFailure>> {
  const hostname = options.hostname ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`Cannot listen on port ${describeValue(port)}: give 0 to 65535`);
  }
  if (options.token !== undefined) checkToken(options.token);
  const token = options.token ?? generateToken();
  const endpoint = new Endpoint(handler, options.path ?? DEFAULT_HTTP_PATH);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname,
      port,
      onListen: () => {},
      onError: (error) =>
        plain(500, `Internal error: ${error instanceof Error ? error.message : String(error)}`),
    }, (request) => endpoint.serve(request));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return err({
      kind: "listen_failed",
      message: `Cannot listen on ${hostname}:${port}: ${reason}; pick another port or address`,
    });
  }
  const bound = server.addr.port;
  const origins = ownOrigins(hostname, bound);
  for (const origin of options.allowedOrigins ?? []) origins.add(origin.toLowerCase());
  const hosts = isLoopback(hostname)
    ? new Set([...origins].filter((o) => o.startsWith("http://")).map((o) => o.slice(7)))
    : undefined;
  endpoint.settings = { origins, hosts, digest: await sha256(token) };
  const urlHost = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
  const url = new URL(`http://${urlHost}:${bound}${options.path ?? DEFAULT_HTTP_PATH}`);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      endpoint.close();
      await server.shutdown();
    })();
    return closing;
  };
  options.signal?.addEventListener("abort", () => void close(), { once: true });
  if (options.signal?.aborted === true) await close();
  return ok({ url, token, finished: server.finished, close });
}

// A session of the legacy era, as the endpoint keeps it.
class Session implements ServerSession {
  readonly id = crypto.randomUUID();
  protocolVersion: string;
  readonly #controller = new AbortController();
  readonly inFlight = new Map<string, AbortController>();
  stream: EventStream | undefined;

  constructor(version: string) {
    this.protocolVersion = version;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  send(message: JsonObject): boolean {
    return this.stream?.send(message) ?? false;
  }

  end(): void {
    this.#controller.abort();
    this.stream?.close();
    this.stream = undefined;
  }
}

// What a POST turned out to carry, once its headers and body were checked.
type Routed = { session: Session | undefined; version: string; opens: boolean };

class Endpoint {
  settings: GuardSettings | undefined;
  readonly #handler: HttpMessageHandler;
  readonly #path: string;
  readonly #sessions = new Map<string, Session>();
  readonly #closed = new AbortController();
  #running = 0;

  constructor(handler: HttpMessageHandler, path: string) {
    this.#handler = handler;
    this.#path = path;
  }

  close(): void {
    this.#closed.abort();
    for (const session of this.#sessions.values()) session.end();
    this.#sessions.clear();
  }

  async serve(request: Request): Promise<Response> {
    const settings = this.settings;
    if (settings === undefined || this.#closed.signal.aborted) {
      return plain(503, "Service unavailable: the server is starting or closing; try again");
    }
    const refusal = await guard(request, settings);
    if (refusal !== undefined) {
      return rpcError(refusal.status, null, INVALID_REQUEST, refusal.message, {
        ...(refusal.status === 401 ? { "www-authenticate": 'Bearer realm="loom-mcp"' } : {}),
      });
    }
    if (new URL(request.url).pathname !== this.#path) {
      return plain(404, `Not found: the MCP endpoint is ${this.#path}`);
    }
    switch (request.method) {
      case "POST":
        return await this.#post(request);
      case "GET":
        return this.#get(request);
      case "DELETE":
        return this.#delete(request);
      default:
        return plain(405, `Method not allowed: ${request.method}; use POST, GET or DELETE`, {
          allow: "GET, POST, DELETE",
        });
    }
  }

  #sessionOf(request: Request): Session | Response | undefined {
    const id = request.headers.get(SESSION_HEADER);
    if (id === null) return undefined;
    const found = this.#sessions.get(id);
    if (found !== undefined) {
      // The map keeps sessions in the order of their last use, the least recent first.
      this.#sessions.delete(id);
      this.#sessions.set(id, found);
      return found;
    }
    return rpcError(
      404,
      null,
      INVALID_REQUEST,
      `Session not found: ${
        JSON.stringify(id)
      } has ended or was never opened; send initialize again`,
    );
  }

  // Ends the least recently used session that has no request in flight and no GET stream open.
  #evictIdle(): boolean {
    for (const session of this.#sessions.values()) {
      if (session.inFlight.size > 0 || session.stream?.open === true) continue;
      session.end();
      this.#sessions.delete(session.id);
      return true;
    }
    return false;
  }

  #get(request: Request): Response {
    const found = this.#sessionOf(request);
    if (found instanceof Response) return found;
    if (found === undefined || isModern(request.headers.get(PROTOCOL_VERSION_HEADER))) {
      return plain(
        405,
        "Method not allowed: GET opens a session's stream; this request has no session",
        {
          allow: "POST, DELETE",
        },
      );
    }
    if (!accepts(request, "text/event-stream")) {
      return plain(406, 'Not acceptable: a GET stream needs "Accept: text/event-stream"');
    }
    if (found.stream?.open === true) {
      return plain(409, "Conflict: this session already has a GET stream open; close it first");
    }
    const stream = new EventStream(() => {
      if (found.stream === stream) found.stream = undefined;
    });
    found.stream = stream;
    return new Response(stream.body, { status: 200, headers: streamHeaders(found) });
  }

  #delete(request: Request): Response {
    const found = this.#sessionOf(request);
    if (found instanceof Response) return found;
    if (found === undefined) {
      return plain(405, "Method not allowed: DELETE ends a session; this request names none", {
        allow: "POST, GET",
      });
    }
    found.end();
    this.#sessions.delete(found.id);
    return new Response(null, { status: 200 });
  }

  async #post(request: Request): Promise<Response> {
    if (!isJsonBody(request.headers.get("content-type"))) {
      return rpcError(
        415,
        null,
        INVALID_REQUEST,
        'Unsupported media type: send "Content-Type: application/json"',
      );
    }
    const body = await readBounded(request);
    if (!body.ok) return body.error;
    const parsed = parseJson(body.value);
    if (!parsed.ok) return rpcError(400, null, PARSE_ERROR, `Parse error: ${parsed.error.message}`);
    const message = parsed.value;
    if (Array.isArray(message)) {
      return rpcError(
        400,
        null,
        INVALID_REQUEST,
        "Invalid request: a batch (JSON array) is not accepted; send one message per POST",
      );
    }
    if (!isJsonObject(message) || message.jsonrpc !== "2.0") {
      return rpcError(
        400,
        null,
        INVALID_REQUEST,
        'Invalid request: the body must be one JSON-RPC 2.0 object ("jsonrpc": "2.0")',
      );
    }
    const id = wireId(message);
    if (id === "bad") {
      return rpcError(
        400,
        null,
        INVALID_REQUEST,
        `Invalid request: "id" is ${describeValue(message.id)}; it must be a string or an integer`,
      );
    }
    const method = message.method;
    if (method !== undefined && typeof method !== "string") {
      return rpcError(
        400,
        id ?? null,
        INVALID_REQUEST,
        `Invalid request: "method" is ${describeValue(method)}, not a string`,
      );
    }
    if (method === undefined && id === undefined) {
      return rpcError(
        400,
        null,
        INVALID_REQUEST,
        'Invalid request: a message needs a "method" or an "id"',
      );
    }
    const routed = this.#route(request, message, method, id);
    if (routed instanceof Response) return routed;
    if (method === undefined || id === undefined) {
      // A notification or a client's response: handed on, acknowledged at once.
      if (method === "notifications/cancelled" && isJsonObject(message.params)) {
        const target = wireId({ id: message.params.requestId ?? null });
        if (target !== undefined && target !== "bad") {
          routed.session?.inFlight.get(idKey(target))?.abort();
        }
      }
      const exchange: HttpExchange = {
        session: routed.session,
        protocolVersion: routed.version,
        signal: routed.session?.signal ?? this.#closed.signal,
        send: () => false,
      };
      try {
        await this.#handler(message, exchange);
      } catch {
        // A notification gets no answer, so a handler's failure on it has no one to reach.
      }
      return new Response(null, { status: 202 });
    }
    if (this.#running >= MAX_HTTP_REQUESTS_IN_FLIGHT) {
      return rpcError(
        503,
        id,
        INTERNAL_ERROR,
        `Server busy: ${MAX_HTTP_REQUESTS_IN_FLIGHT} requests are being answered; send it again once some are`,
      );
    }
    return await this.#answer(request, message, id, routed);
  }

  #route(
    request: Request,
    message: JsonObject,
    method: string | undefined,
    id: WireId | undefined,
  ): Routed | Response {
    const header = request.headers.get(PROTOCOL_VERSION_HEADER);
    if (header !== null && isModern(header)) {
      return this.#routeModern(request, message, method, id, header);
    }
    if (header !== null && !(LEGACY_VERSIONS as readonly string[]).includes(header)) {
      return rpcError(
        400,
        id ?? null,
        UNSUPPORTED_PROTOCOL_VERSION,
        `Unsupported protocol version: ${PROTOCOL_VERSION_HEADER} ${
          JSON.stringify(header)
        }; this server speaks ${SUPPORTED_VERSIONS.join(", ")}`,
        {},
        { supported: [...SUPPORTED_VERSIONS], requested: header },
      );
    }
    if (method === "initialize" && id !== undefined) {
      if (request.headers.get(SESSION_HEADER) !== null) {
        return rpcError(
          400,
          id,
          INVALID_REQUEST,
          `Invalid request: initialize opens a session, so it carries no ${SESSION_HEADER}; send it without one`,
        );
      }
      if (this.#sessions.size >= MAX_HTTP_SESSIONS && !this.#evictIdle()) {
        return rpcError(
          503,
          id,
          INTERNAL_ERROR,
          `Server busy: ${MAX_HTTP_SESSIONS} sessions are open and each is in use; end unused ones with DELETE`,
        );
      }
      const params = isJsonObject(message.params) ? message.params : {};
      const asked = typeof params.protocolVersion === "string"
        ? params.protocolVersion
        : LEGACY_VERSIONS[0];
      return { session: new Session(asked), version: asked, opens: true };
    }
    const found = this.#sessionOf(request);
    if (found instanceof Response) return found;
    if (found === undefined) {
      return rpcError(
        400,
        id ?? null,
        INVALID_REQUEST,
        `Bad request: ${SESSION_HEADER} is missing; send initialize first and the session id it gives with every request (or ${PROTOCOL_VERSION_HEADER}: ${
          MODERN_VERSIONS[0]
        } for a stateless request)`,
      );
    }
    if (header !== null && header !== found.protocolVersion) {
      return rpcError(
        400,
        id ?? null,
        INVALID_REQUEST,
        `Bad request: ${PROTOCOL_VERSION_HEADER} ${
          JSON.stringify(header)
        } is not the session's version ${JSON.stringify(found.protocolVersion)}`,
      );
    }
    return { session: found, version: found.protocolVersion, opens: false };
  }

  #routeModern(
    request: Request,
    message: JsonObject,
    method: string | undefined,
    id: WireId | undefined,
    header: string,
  ): Routed | Response {
    if (method === undefined) {
      return rpcError(
        400,
        id ?? null,
        INVALID_REQUEST,
        `Invalid request: a ${header} client sends no responses; answer input requests in the retried request`,
      );
    }
    const mismatch = (text: string): Response =>
      rpcError(400, id ?? null, HEADER_MISMATCH, `Header mismatch: ${text}`);
    if (id !== undefined) {
      const params = isJsonObject(message.params) ? message.params : {};
      const meta = isJsonObject(params._meta) ? params._meta : {};
      const inBody = meta[META_PROTOCOL_VERSION];
      if (inBody !== header) {
        return mismatch(
          `${PROTOCOL_VERSION_HEADER} ${
            JSON.stringify(header)
          } does not match _meta's "${META_PROTOCOL_VERSION}" ${describeValue(inBody)}`,
        );
      }
      const methodHeader = request.headers.get(METHOD_HEADER);
      if (methodHeader !== method) {
        return mismatch(
          `${METHOD_HEADER} ${
            describeValue(methodHeader ?? undefined)
          } does not match the body's method ${JSON.stringify(method)}`,
        );
      }
      const source = method === "resources/read"
        ? "uri"
        : method === "tools/call" || method === "prompts/get"
        ? "name"
        : undefined;
      if (source !== undefined) {
        const nameHeader = request.headers.get(NAME_HEADER);
        const name = nameHeader === null ? undefined : decodeHeaderValue(nameHeader);
        if (name === undefined || name !== params[source]) {
          return mismatch(
            `${NAME_HEADER} ${
              describeValue(nameHeader ?? undefined)
            } does not match the body's ${source} ${describeValue(params[source])}`,
          );
        }
      }
    }
    return { session: undefined, version: header, opens: false };
  }

  async #answer(
    request: Request,
    message: JsonObject,
    id: WireId,
    routed: Routed,
  ): Promise<Response> {
    const { session, version, opens } = routed;
    const controller = new AbortController();
    const key = idKey(id);
    // Not request.signal: reading it makes Deno print a warning, and a library never prints.
    const signals = [this.#closed.signal];
    if (session !== undefined && !opens) {
      signals.push(session.signal);
      session.inFlight.get(key)?.abort();
      session.inFlight.set(key, controller);
    }
    const signal = AbortSignal.any([controller.signal, ...signals]);
    const streams = accepts(request, "text/event-stream");
    const early: JsonObject[] = [];
    const live: { stream?: EventStream } = {};
    let startStream: (() => void) | undefined;
    const streamWanted = new Promise<"stream">((resolve) => startStream = () => resolve("stream"));
    const exchange: HttpExchange = {
      session,
      protocolVersion: version,
      signal,
      send: (sent) => {
        if (!streams || signal.aborted) return false;
        if (live.stream !== undefined) return live.stream.send(sent);
        early.push(sent);
        startStream?.();
        return true;
      },
    };
    this.#running++;
    const answered = (async (): Promise<JsonObject> => {
      try {
        const answer = await this.#handler(message, exchange);
        if (answer !== undefined && isJsonObject(answer)) return answer;
        return encodeError(
          id,
          signal.aborted
            ? {
              code: REQUEST_CANCELLED,
              message: "Request cancelled: its exchange ended before the answer",
            }
            : {
              code: INTERNAL_ERROR,
              message: `Internal error: the server gave no answer to ${
                describeValue(message.method)
              }`,
            },
        );
      } catch (error) {
        return encodeError(id, {
          code: INTERNAL_ERROR,
          message: `Internal error: ${error instanceof Error ? error.message : String(error)}`,
        });
      } finally {
        this.#running--;
        if (session?.inFlight.get(key) === controller) session.inFlight.delete(key);
      }
    })();
    const aborted = new Promise<"aborted">((resolve) => {
      if (signal.aborted) resolve("aborted");
      signal.addEventListener("abort", () => resolve("aborted"), { once: true });
    });
    // An answer not ready by the next task comes as a stream, opened at once, so that the client
    // closing it is seen: that is how a 2026-07-28 client cancels.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = streams
      ? new Promise<"stream">((resolve) => timer = setTimeout(() => resolve("stream"), 0))
      : undefined;
    const first = await Promise.race([answered, streamWanted, aborted, ...(slow ? [slow] : [])]);
    clearTimeout(timer);
    if (first === "aborted") {
      return rpcError(
        503,
        id,
        REQUEST_CANCELLED,
        "Request cancelled: the session or the server ended before the answer",
      );
    }
    if (first !== "stream") {
      if (opens && session !== undefined) this.#open(session, first);
      return this.#json(first, version, session);
    }
    const opened = new EventStream(() => controller.abort());
    live.stream = opened;
    for (const sent of early) opened.send(sent);
    signal.addEventListener("abort", () => opened.close(), { once: true });
    void answered.then((answer) => {
      opened.send(answer);
      opened.close();
    });
    if (opens && session !== undefined) {
      // The session exists once initialize is answered; a streamed initialize is rare but legal.
      void answered.then((answer) => this.#open(session, answer));
    }
    return new Response(opened.body, { status: 200, headers: streamHeaders(session) });
  }

  #open(session: Session, answer: JsonObject): void {
    const result = answer.result;
    if (!isJsonObject(result) || this.#closed.signal.aborted) return;
    if (typeof result.protocolVersion === "string") {
      session.protocolVersion = result.protocolVersion;
    }
    this.#sessions.set(session.id, session);
  }

  #json(answer: JsonObject, version: string, session: Session | undefined): Response {
    const text = stringifyJson(answer);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (session !== undefined && this.#sessions.has(session.id)) {
      headers[SESSION_HEADER.toLowerCase()] = session.id;
    }
    return new Response(text.ok ? text.value : "{}", {
      status: statusOf(answer, version),
      headers,
    });
  }
}

// A 2026-07-28 answer says in its status what kind of failure it carries.
function statusOf(answer: JsonObject, version: string): number {
  if (!isModern(version) || !isJsonObject(answer.error)) return 200;
  const code = answer.error.code;
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === UNSUPPORTED_PROTOCOL_VERSION || code === HEADER_MISMATCH) return 400;
  return 200;
}

function isModern(version: string | null): boolean {
  return version !== null && (MODERN_VERSIONS as readonly string[]).includes(version);
}

// undefined: no id (a notification); "bad": an id JSON-RPC does not allow.
function wireId(message: JsonObject): WireId | undefined | "bad" {
  const id = message.id;
  if (id === undefined || id === null) return undefined;
  if (typeof id === "string" || typeof id === "bigint") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  return "bad";
}

function accepts(request: Request, type: string): boolean {
  const accept = request.headers.get("accept");
  if (accept === null) return type === "application/json";
  return accept.split(",").some((part) => {
    const media = (part.split(";")[0] ?? "").trim().toLowerCase();
    return media === type || media === "*/*" || media === `${type.split("/")[0]}/*`;
  });
}

function isJsonBody(contentType: string | null): boolean {
  return contentType !== null &&
    (contentType.split(";")[0] ?? "").trim().toLowerCase() === "application/json";
}

async function readBounded(request: Request): Promise<Result<string, Response>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  const tooLarge = (): Result<string, Response> =>
    err(
      rpcError(
        413,
        null,
        INVALID_REQUEST,
        `Payload too large: a body may hold ${MAX_HTTP_BODY_BYTES} bytes; send a smaller message`,
      ),
    );
  if (declared > MAX_HTTP_BODY_BYTES) return tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body !== null) {
    const reader = request.body.getReader();
    try {
      for (;;) {
        const read = await reader.read();
        if (read.done) break;
        size += read.value.byteLength;
        if (size > MAX_HTTP_BODY_BYTES) {
          await reader.cancel();
          return tooLarge();
        }
        chunks.push(read.value);
      }
    } catch (error) {
      return err(
        plain(
          400,
          `Bad request: the body could not be read: ${
            error instanceof Error ? error.message : String(error)
          }`,
        ),
      );
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  try {
    return ok(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return err(rpcError(400, null, PARSE_ERROR, "Parse error: the body is not UTF-8"));
  }
}

function streamHeaders(session: Session | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
  };
  if (session !== undefined) headers[SESSION_HEADER.toLowerCase()] = session.id;
  return headers;
}

function rpcError(
  status: number,
  id: WireId | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: JsonObject,
): Response {
  const body = encodeError(id, data === undefined ? { code, message } : { code, message, data });
  const text = stringifyJson(body);
  return new Response(text.ok ? text.value : "{}", {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function plain(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(message, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

// Private to server/http/: the endpoint behind `listenHttp`: it routes each
// request by its method and era, keeps the legacy sessions (at most
// MAX_HTTP_SESSIONS, the least recently used idle one evicted for a new one),
// and answers each request as one JSON body or an event stream.
//
// Lifecycle: `listenHttp` owns the endpoint and calls `close()` before it
// stops the listener; `close()` ends every session (aborting its signal and
// closing its GET stream), aborts every exchange still running and stops
// every body still being read. A session exists once its initialize is
// answered with a result; one whose initialize is answered otherwise, or
// whose client went before the answer, ends then. A request's exchange
// follows the close and its session's end until its answer and no longer
// (`follow`), so that an answered request leaves nothing behind.

import { isJsonObject, type JsonObject, parseJson } from "../../codec/json.ts";
import { encodeError, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR } from "../../codec/jsonrpc.ts";
import { LEGACY_VERSIONS, MODERN_VERSIONS, SUPPORTED_VERSIONS } from "../../codec/protocol.ts";
import { PROTOCOL_VERSION_HEADER, SESSION_HEADER } from "../../codec/streamable_http.ts";
import { UNSUPPORTED_PROTOCOL_VERSION } from "../../codec/stateless.ts";
import { describeValue } from "../../codec/quote.ts";
import { idKey, type WireId } from "../_inbound.ts";
import { BodyReader } from "./_body.ts";
import { EventStream } from "./_event_stream.ts";
import { follow } from "./_follow.ts";
import { guard, type GuardSettings } from "./_guard.ts";
import { HeldBody } from "./_held_body.ts";
import { accepts, isJsonBody, wireId } from "./_request.ts";
import { plain, rpcError, streamHeaders } from "./_response.ts";
import { messageText } from "./_message_text.ts";
import { type Routed, Session } from "./_session.ts";
import { isModern, routeModern, statusOf } from "./_stateless.ts";
import { type HttpExchange, type HttpMessageHandler, REQUEST_CANCELLED } from "./exchange.ts";
import { MAX_HTTP_REQUESTS_IN_FLIGHT, MAX_HTTP_SESSIONS } from "./limits.ts";

/** Where the endpoint is, and how long a body may take to arrive. */
export type EndpointOptions = { path: string; bodyTimeoutMs: number };

export class Endpoint {
  settings: GuardSettings | undefined;
  readonly #handler: HttpMessageHandler;
  readonly #path: string;
  readonly #sessions = new Map<string, Session>();
  readonly #closed = new AbortController();
  readonly #bodies: BodyReader;
  #running = 0;

  constructor(handler: HttpMessageHandler, options: EndpointOptions) {
    this.#handler = handler;
    this.#path = options.path;
    this.#bodies = new BodyReader(options.bodyTimeoutMs, this.#closed.signal);
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
    const body = await this.#bodies.read(request);
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
      const controller = new AbortController();
      const release = follow(controller, this.#lifelong(routed.session));
      const exchange: HttpExchange = {
        session: routed.session,
        protocolVersion: routed.version,
        signal: controller.signal,
        send: () => false,
      };
      try {
        await this.#handler(message, exchange);
      } catch {
        // A notification gets no answer, so a handler's failure on it has no one to reach.
      } finally {
        release();
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
      return routeModern(request, { message, method, id, header });
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

  async #answer(
    request: Request,
    message: JsonObject,
    id: WireId,
    routed: Routed,
  ): Promise<Response> {
    const { session, version, opens } = routed;
    const controller = new AbortController();
    const signal = controller.signal;
    const key = idKey(id);
    // Not request.signal: reading it makes Deno print a warning, and a library never prints. A
    // client going away is seen as its response body's cancel (an event stream, or a held body).
    const release = follow(controller, this.#lifelong(opens ? undefined : session));
    if (session !== undefined && !opens) {
      session.inFlight.get(key)?.abort();
      session.inFlight.set(key, controller);
    }
    const streams = accepts(request, "text/event-stream");
    const early: JsonObject[] = [];
    const live: { stream?: EventStream } = {};
    let startStream: (() => void) | undefined;
    const streamWanted = new Promise<"later">((resolve) => startStream = () => resolve("later"));
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
        release();
        if (session?.inFlight.get(key) === controller) session.inFlight.delete(key);
      }
    })();
    const aborted = new Promise<"aborted">((resolve) => {
      if (signal.aborted) resolve("aborted");
      signal.addEventListener("abort", () => resolve("aborted"), { once: true });
    });
    // An answer not ready by the next task comes as a stream (or a held JSON body), opened at
    // once, so that the client closing it is seen: that is how a 2026-07-28 client cancels, and
    // how any client that goes away stops what it asked for.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise<"later">((resolve) => timer = setTimeout(() => resolve("later"), 0));
    const first = await Promise.race([answered, streamWanted, aborted, slow]);
    clearTimeout(timer);
    if (first === "aborted") {
      if (opens && session !== undefined) session.end();
      return rpcError(
        503,
        id,
        REQUEST_CANCELLED,
        "Request cancelled: the session or the server ended before the answer",
      );
    }
    if (first !== "later") {
      if (opens && session !== undefined) this.#open(session, first);
      return this.#json(first, version, session);
    }
    if (opens && session !== undefined) {
      // The session exists once initialize is answered, to a client still there to read it.
      void answered.then((answer) => {
        if (signal.aborted) session.end();
        else this.#open(session, answer);
      });
    }
    if (!streams) return this.#held(answered, id, controller, session);
    const opened = new EventStream(() => controller.abort());
    live.stream = opened;
    for (const sent of early) opened.send(sent);
    signal.addEventListener("abort", () => opened.close(), { once: true });
    void answered.then((answer) => {
      opened.send(answer);
      opened.close();
    });
    return new Response(opened.body, { status: 200, headers: streamHeaders(session) });
  }

  // A slow answer to a client that takes only JSON: its headers now, its body once it is known
  // (a cancellation when the exchange ends first). Its status is then 200 whatever the answer
  // says: the 2026-07-28 errors that have another (an unknown method, a header mismatch) are
  // answered before the next task.
  #held(
    answered: Promise<JsonObject>,
    id: WireId,
    controller: AbortController,
    session: Session | undefined,
  ): Response {
    const held = new HeldBody(() => controller.abort());
    const signal = controller.signal;
    const cancelled = (): void =>
      held.end(
        messageText(encodeError(id, {
          code: REQUEST_CANCELLED,
          message: "Request cancelled: the session or the server ended before the answer",
        })) ?? "",
      );
    signal.addEventListener("abort", cancelled, { once: true });
    void answered.then((answer) => {
      signal.removeEventListener("abort", cancelled);
      held.end(messageText(answer) ?? "");
    });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (session !== undefined) headers[SESSION_HEADER.toLowerCase()] = session.id;
    return new Response(held.body, { status: 200, headers });
  }

  // What an exchange follows until it ends: the server's close, and its session's end.
  #lifelong(session: Session | undefined): AbortSignal[] {
    return session === undefined ? [this.#closed.signal] : [this.#closed.signal, session.signal];
  }

  #open(session: Session, answer: JsonObject): void {
    const result = answer.result;
    if (!isJsonObject(result) || this.#closed.signal.aborted) {
      // No result, no session: it never held anything, and ends now so that nothing waits on it.
      session.end();
      return;
    }
    if (typeof result.protocolVersion === "string") {
      session.protocolVersion = result.protocolVersion;
    }
    this.#sessions.set(session.id, session);
  }

  #json(answer: JsonObject, version: string, session: Session | undefined): Response {
    const text = messageText(answer);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (session !== undefined && this.#sessions.has(session.id)) {
      headers[SESSION_HEADER.toLowerCase()] = session.id;
    }
    if (text === undefined) return new Response(null, { status: 202, headers });
    return new Response(text, {
      status: statusOf(answer, version),
      headers,
    });
  }
}

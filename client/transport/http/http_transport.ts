/**
 * The remote transport: one MCP server behind a Streamable HTTP endpoint,
 * spoken to from the client's worker through the same seam as a child
 * process ({@linkcode Transport}), so the machine, its era negotiation, its
 * deadlines and its death paths are the ones stdio has.
 *
 * Every line the machine writes is one JSON-RPC message and becomes one
 * POST (`_exchange.ts`, from the POST to its answer); what the server
 * answers (one JSON body, or the messages of an event stream) reaches the
 * machine as lines. A modern message (its
 * envelope in `params._meta`) carries `MCP-Protocol-Version`, `Mcp-Method`
 * and `Mcp-Name`; a legacy session carries `Mcp-Session-Id` and the
 * negotiated `MCP-Protocol-Version` after `initialize`, is opened again when
 * the server forgets it (404), and is deleted at retirement. A legacy stream
 * that drops before its answer is resumed with `Last-Event-ID` when the
 * server gave event ids; a modern one is lost, and re-issued as a new
 * request only where that does nothing twice (`_reissue.ts`). Every
 * body and every event is capped at 16 MiB; a request the machine gives up
 * on (its deadline, its caller) has its stream closed, which in the modern
 * era is also how it is cancelled. A notification never ends the client
 * (`_notify.ts`); once the server has answered, a request that cannot
 * be sent (or whose headers would be too long to send) fails alone. A server
 * that signs in (a sign-in the main thread holds) has its requests carry the
 * credentials the main thread gives, and hands it every 401 or 403
 * (`auth.ts`); without one, a refusal ends the client.
 *
 * Who closes what: the transport owns every fetch and its body; the machine
 * tells it when a request needs nothing more ({@linkcode HttpTransport.prototype.done}),
 * `release`, its session's control, ends the session (no process exists, so
 * no exit is ever claimed), and `dispose` aborts whatever is still open. It
 * has no stdin to close, no signal to send and no stderr: those are a
 * process's control (`ProcessControl`), which it does not have.
 *
 * @module
 */

import { ok, type Result } from "../../../codec/result.ts";
import { joinBytes } from "../../../codec/_bytes.ts";
import {
  displayUrl,
  isMediaType,
  jsonLineBytes,
  jsonOnOneLine,
  type OutgoingMessage,
  readOutgoing,
} from "../../../codec/streamable_http.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { HttpFailure, StartFailure } from "../../thread/outcomes.ts";
import type { RemoteEvidence } from "../../thread/evidence.ts";
import { httpFailure } from "../../thread/outcomes.ts";
import { type HeaderList, send, type Sent } from "./_read.ts";
import {
  DEFAULT_RESUME_DELAY_MS,
  followStream,
  MAX_RESUME_DELAY_MS,
  sleepUnless,
} from "./_stream.ts";
import { type MadeUp, madeUpLine, unsentFailure, type Where } from "./_words.ts";
import { Notifier } from "./_notify.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS } from "../../../settings/limits.ts";
import { HttpSession } from "./_session.ts";
import { ToolMarks } from "./_tools.ts";
import type { HttpAuth } from "./auth.ts";
import { SentCredentials } from "./_credentials.ts";
import { Exchanges, type Unsent } from "./_exchange.ts";
import type { ServerControl, SessionControl, Transport, TransportSink } from "../transport.ts";

export { DEFAULT_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS, MAX_RESUMPTIONS } from "./_stream.ts";
export { HTTP_ANSWER_ERROR } from "./_words.ts";
export { MAX_OPEN_NOTIFICATIONS, NOTIFICATION_TIMEOUT_MS } from "./_notify.ts";

/** What to reach, and how. */
export type HttpOptions = {
  /** The server's name, for messages. */
  name: string;
  /** The MCP endpoint. */
  url: string;
  /** Headers every request carries (an `Authorization`, for example). */
  headers: Readonly<Record<string, string>>;
  /** The clock of resumption delays and notification deadlines; the system clock by default. */
  clock?: Clock;
  /**
   * How long a new session may take to open when the server forgot the
   * old one (a 404), in ms: the server's connect timeout,
   * `DEFAULT_CONNECT_TIMEOUT_MS` when not given.
   */
  connectTimeoutMs?: number;
  /** The credentials of a server that signs in, from the main thread's sign-in. */
  auth?: HttpAuth;
  /**
   * Whether a legacy session opens its own event stream (a `GET`) once it is
   * initialized, where the server sends what belongs to no request of the
   * client's: a resource's updates, list changes, log messages, an
   * elicitation or a sampling request. `true` by default.
   */
  listen?: boolean;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NEWLINE = 0x0a;

/**
 * Speaks MCP to one Streamable HTTP endpoint. Its server is behind a
 * session, which is its control ({@linkcode SessionControl}): retirement
 * releases it.
 *
 * @example Open a transport (nothing is sent until the machine writes)
 * ```ts
 * import { HttpTransport } from "./http_transport.ts";
 * const transport = new HttpTransport({ name: "remote", url: "http://127.0.0.1:9/mcp", headers: {} });
 * console.log(transport.endpoint); // http://127.0.0.1:9/mcp
 * ```
 */
export class HttpTransport implements Transport, SessionControl {
  /** The legacy session's `Mcp-Session-Id`, once the server gave one. */
  sessionId(): string | undefined {
    return this.#session.id;
  }

  /** A remote server's control: its session, this transport's own. */
  readonly control: ServerControl = { kind: "session", session: this };
  #name: string;
  #url: URL;
  #clock: Clock;
  #sink: TransportSink | undefined;
  #parts: Uint8Array[] = [];
  #partBytes = 0;
  #all = new AbortController();
  #ended = false;
  #refused: StartFailure | undefined;
  #session: HttpSession;
  #tools = new ToolMarks();
  #auth: HttpAuth | undefined;
  #notifier: Notifier;
  #exchanges: Exchanges;
  /** Every credential sent, scrubbed from whatever the server says before anything keeps it. */
  #credentials = new SentCredentials();
  #listen: boolean;
  #listening = false;

  /** Makes a transport for an endpoint; `TypeError` for a URL that is not http or https. */
  constructor(options: HttpOptions) {
    this.#name = options.name;
    this.#listen = options.listen ?? true;
    this.#url = new URL(options.url);
    if (this.#url.protocol !== "http:" && this.#url.protocol !== "https:") {
      throw new TypeError(`Cannot reach server "${options.name}": its URL is not http or https`);
    }
    this.#auth = options.auth;
    this.#credentials.learn(options.headers);
    this.#clock = options.clock ?? systemClock;
    this.#session = new HttpSession(
      this.#url,
      options.headers,
      (url, init) => this.#send(url, init),
      {
        clock: this.#clock,
        timeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        renewed: () => {
          if (!this.#ended) this.#sink?.renewed?.();
        },
      },
    );
    this.#notifier = new Notifier(this.#clock, (url, init) => this.#send(url, init));
    this.#exchanges = new Exchanges({
      name: this.#name,
      url: this.#url,
      endpoint: this.endpoint,
      clock: this.#clock,
      session: this.#session,
      tools: this.#tools,
      credentials: this.#credentials,
      signal: this.#all.signal,
      ended: () => this.#ended,
      send: (url, init) => this.#send(url, init),
      headers: (message) => this.#headers(message),
      renumber: (old) => this.#sink?.reissue?.(old),
      deliverText: (line) => this.#deliverText(line),
      deliverBytes: (bytes) => this.#deliverBytes(bytes),
      madeUp: (id, words) => this.#madeUp(id, words),
      fail: (message, http) => this.#fail(message, http),
      failSent: (sent, message) => this.#failSent(sent, message),
    });
  }

  /** The endpoint as it may be shown (no credentials, no query). */
  get endpoint(): string {
    return displayUrl(this.#url);
  }

  /** Nothing to start: the first request opens the conversation. */
  open(sink: TransportSink): Promise<Result<void, { message: string }>> {
    if (this.#sink !== undefined) throw new TypeError("Cannot open an HttpTransport twice");
    this.#sink = sink;
    return Promise.resolve(ok(undefined));
  }

  /** Queues part of a message; a part ending with a newline completes it, and it is sent. */
  write(data: string | Uint8Array): void {
    if (this.#ended) return;
    if (this.#parts.length === 0 && typeof data !== "string" && data.at(-1) === NEWLINE) {
      // A whole line in one part, the machine's usual write: one copy, no join.
      void this.#dispatch(data.slice(0, -1));
      return;
    }
    const bytes = typeof data === "string" ? encoder.encode(data) : data.slice();
    this.#parts.push(bytes);
    this.#partBytes += bytes.length;
    if (bytes[bytes.length - 1] !== NEWLINE) return;
    const whole = joinBytes(this.#parts, this.#partBytes) as Uint8Array<ArrayBuffer>;
    const line = whole.subarray(0, whole.length - 1);
    this.#parts = [];
    this.#partBytes = 0;
    void this.#dispatch(line);
  }

  /** The machine needs nothing more for request `id`: its stream, if open, is closed. */
  done(id: number | string): void {
    this.#exchanges.done(id);
  }

  /**
   * Ends the session: every open request is abandoned, and a legacy
   * session the server gave an id is deleted (`DELETE` with its id) within
   * `deadlineMs`. Says what was done; a stateless session has nothing to end.
   */
  async release(deadlineMs: number): Promise<RemoteEvidence> {
    this.#abortAll();
    return await this.#session.end(deadlineMs, this.#clock);
  }

  /** Aborts every request still open. */
  dispose(): Promise<void> {
    this.#abortAll();
    return Promise.resolve();
  }

  #abortAll(): void {
    this.#ended = true;
    this.#exchanges.abandonAll();
    this.#all.abort();
  }

  async #dispatch(body: Uint8Array<ArrayBuffer>): Promise<void> {
    const message = readOutgoing(decoder.decode(body));
    if (message.kind === "unreadable") return;
    if (message.kind === "request" && message.id !== undefined) {
      if (message.method === "initialize") this.#session.initializing(body);
      await this.#exchanges.request(message, message.id, body);
      return;
    }
    // The modern era cancels by closing the request's stream (done).
    if (message.version !== undefined) return;
    await this.#notifier.post(this.#url, this.#headers(message), body, this.#all.signal);
    // One loop for the transport's life: a session opened again (its server
    // forgot the last) is followed by the loop already running.
    if (this.#listen && !this.#listening && message.method === "notifications/initialized") {
      this.#listening = true;
      void this.#listenStream();
    }
  }

  /**
   * Follows the session's own event stream for as long as the transport
   * lives, its messages delivered as any other. A stream the server ends or
   * that breaks is opened again after `DEFAULT_RESUME_DELAY_MS`, a wait that
   * doubles up to `MAX_RESUME_DELAY_MS` while streams bring nothing (never a
   * hot loop); a server that offers none (405, or anything but a stream) is
   * left alone for good. A session the server forgot (404) is followed again
   * once it was opened again, by the next request that met the 404.
   */
  async #listenStream(): Promise<void> {
    const signal = this.#all.signal;
    let waitMs = DEFAULT_RESUME_DELAY_MS;
    while (!this.#ended) {
      const id = this.#session.id;
      const opened = await this.#openListen(signal);
      if (opened === "refused" || this.#ended) return;
      if (opened === "heard") waitMs = DEFAULT_RESUME_DELAY_MS;
      do {
        if (!(await sleepUnless(this.#clock, waitMs, signal)) || this.#ended) return;
        if (opened !== "heard") waitMs = Math.min(waitMs * 2, MAX_RESUME_DELAY_MS);
      } while (opened === "forgotten" && this.#session.id === id);
    }
  }

  /** One GET of the session's own stream, followed to its end: what it brought. */
  async #openListen(signal: AbortSignal): Promise<"refused" | "forgotten" | "heard" | "silent"> {
    const headers = this.#session.headers(undefined);
    headers.accept = "text/event-stream";
    const sent = await this.#send(this.#url, { method: "GET", headers, signal });
    // A server out of reach is tried again, as a stream that ended; one that
    // redirects the GET away or refuses its credentials is left alone.
    if (sent.kind === "unreachable") return "silent";
    if (sent.kind !== "answer") return "refused";
    const response = sent.response;
    if (
      response.status !== 200 ||
      !isMediaType(response.headers.get("content-type"), "text/event-stream")
    ) {
      response.body?.cancel().catch(() => {});
      return response.status === 404 && headers["mcp-session-id"] !== undefined
        ? "forgotten"
        : "refused";
    }
    let heard = false;
    await followStream(response.body, {
      modern: false,
      message: (data) => {
        heard = true;
        this.#deliverText(jsonOnOneLine(data));
      },
      waiting: () => !this.#ended,
      sleep: async (ms) => await sleepUnless(this.#clock, ms, signal) && !this.#ended,
      resume: (lastEventId) => this.#session.resume(lastEventId, signal),
    }).catch(() => undefined);
    return heard ? "heard" : "silent";
  }

  /** Sends a request, with the server's credentials when it signs in. */
  #send(
    url: URL,
    init: {
      method: string;
      headers: HeaderList;
      body?: Uint8Array<ArrayBuffer>;
      signal: AbortSignal;
    },
  ): Promise<Sent> {
    return this.#auth?.send(url, init, this.#credentials) ?? send(url, init);
  }

  /** The headers of the POST carrying `message`, its parameter headers included. */
  #headers(message: OutgoingMessage): HeaderList {
    const headers = this.#session.headers(message);
    if (message.version === undefined) return headers;
    for (const [name, value] of this.#tools.headers(message)) headers[name.toLowerCase()] = value;
    return headers;
  }

  get #where(): Where {
    return { name: this.#name, endpoint: this.endpoint };
  }

  /** A request got no answer before the server ever answered: the client fails, saying why. */
  #failSent(sent: Unsent, m: OutgoingMessage) {
    const failed = unsentFailure(this.#where, sent, m);
    this.#failWith(failed.message, failed.failure);
  }

  /** A made-up JSON-RPC error for a request the server answered without one. */
  #madeUp(id: number | string, words: MadeUp): void {
    if (this.#ended) return;
    this.#deliverText(madeUpLine(id, words));
  }

  // Every line reaches the machine through these two, so none carries a credential sent.
  #deliverText(line: string): void {
    if (this.#ended) return;
    this.#sink?.bytes(this.#credentials.cleanBytes(encoder.encode(`${line}\n`)));
  }

  /** Hands a JSON body to the machine as one line. */
  #deliverBytes(bytes: Uint8Array): void {
    if (!this.#ended) this.#sink?.bytes(this.#credentials.cleanBytes(jsonLineBytes(bytes)));
  }

  #fail(message: string, http?: HttpFailure): void {
    this.#failWith(message, httpFailure(message, http));
  }

  #failWith(message: string, failure: StartFailure): void {
    if (this.#ended) return;
    this.#abortAll();
    this.#refused = this.#credentials.cleanFailure(failure);
    this.#sink?.end({ kind: "http_failed", message: this.#credentials.clean(message) });
  }

  /** Why the transport failed, when it did: the start fails with this. */
  refused(): StartFailure | undefined {
    return this.#refused;
  }
}

/**
 * The remote transport: one MCP server behind a Streamable HTTP endpoint,
 * spoken to from the client's worker through the same seam as a child
 * process ({@linkcode Transport}), so the machine, its era negotiation, its
 * deadlines and its death paths are the ones stdio has.
 *
 * Every line the machine writes is one JSON-RPC message and becomes one
 * POST; what the server answers (one JSON body, or the messages of an event
 * stream) reaches the machine as lines. A modern message (its
 * envelope in `params._meta`) carries `MCP-Protocol-Version`, `Mcp-Method`
 * and `Mcp-Name`; a legacy session carries `Mcp-Session-Id` and the
 * negotiated `MCP-Protocol-Version` after `initialize`, is opened again when
 * the server forgets it (404), and is deleted at retirement. A legacy stream
 * that drops before its answer is resumed with `Last-Event-ID` when the
 * server gave event ids; a modern one is lost, and re-issued as a new
 * request only where that does nothing twice (`_http_reissue.ts`). Every
 * body and every event is capped at 16 MiB; a request the machine gives up
 * on (its deadline, its caller) has its stream closed, which in the modern
 * era is also how it is cancelled. A notification never ends the client
 * (`_http_notify.ts`); once the server has answered, a request that cannot
 * be sent (or whose headers would be too long to send) fails alone. A server
 * that signs in (a sign-in the main thread holds) has its requests carry the
 * credentials the main thread gives, and hands it every 401 or 403
 * (`_http_auth.ts`); without one, a refusal ends the client.
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

import { MAX_LINE_BYTES } from "../../../codec/framing.ts";
import { ok, type Result } from "../../../codec/result.ts";
import { joinBytes } from "../../../codec/_bytes.ts";
import {
  bodyExcerpt,
  displayUrl,
  isMediaType,
  jsonOnOneLine,
  type OutgoingMessage,
  readOutgoing,
} from "../../../codec/streamable_http.ts";
import { MAX_PARAM_HEADER_BYTES, oversizedHeader } from "../../../codec/param_headers.ts";
import { type Clock, systemClock } from "../clock.ts";
import type { HttpFailure, StartFailure } from "../../thread/outcomes.ts";
import type { RemoteEvidence } from "../../thread/evidence.ts";
import { httpFailure } from "../../thread/outcomes.ts";
import {
  answeredId,
  answerOf,
  type HeaderList,
  readResponseBody,
  refusal,
  send,
  type Sent,
} from "./_read.ts";
import { followStream, sleepUnless } from "./_stream.ts";
import {
  headerTooLong,
  jsonLine,
  type MadeUp,
  madeUpLine,
  noAnswer,
  notLetIn,
  otherAnswer,
  subject,
  unsentFailure,
  unsentMessage,
  type Where,
} from "./_words.ts";
import { Notifier } from "./_notify.ts";
import { HttpSession } from "./_session.ts";
import { ToolMarks } from "./_tools.ts";
import type { HttpAuth } from "./auth.ts";
import { Reissues } from "./_reissue.ts";
import { SentCredentials } from "./_credentials.ts";
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
  /** The credentials of a server that signs in, from the main thread's sign-in. */
  auth?: HttpAuth;
  /**
   * Open the session's own event stream (a `GET`) once it is initialized,
   * where a legacy server sends the requests that belong to no request of
   * the client's (an elicitation, a sampling request); only a client that
   * answers such requests asks for it.
   */
  listen?: boolean;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NEWLINE = 0x0a;
/**
 * Why a request's stream is closed once the machine needs nothing more: one
 * reason for all, since `abort()` without one makes a `DOMException`, with
 * its stack, per call (about 12 µs of the worker's CPU per call over HTTP,
 * measured with `--cpu-prof`; BENCHMARKS.md).
 */
const NOTHING_MORE = new DOMException("The request needs nothing more", "AbortError");

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
  #inflight = new Map<number | string, AbortController>();
  #ended = false;
  #refused: StartFailure | undefined;
  #session: HttpSession;
  #tools = new ToolMarks();
  #auth: HttpAuth | undefined;
  /** Whether the server has answered a request with success: failures are then one request's. */
  #reached = false;
  #notifier: Notifier;
  #reissues = new Reissues();
  /** Every credential sent, scrubbed from whatever the server says before anything keeps it. */
  #credentials = new SentCredentials();
  #listen: boolean;

  /** Makes a transport for an endpoint; `TypeError` for a URL that is not http or https. */
  constructor(options: HttpOptions) {
    this.#name = options.name;
    this.#listen = options.listen ?? false;
    this.#url = new URL(options.url);
    if (this.#url.protocol !== "http:" && this.#url.protocol !== "https:") {
      throw new TypeError(`Cannot reach server "${options.name}": its URL is not http or https`);
    }
    this.#auth = options.auth;
    this.#credentials.learn(options.headers);
    this.#session = new HttpSession(
      this.#url,
      options.headers,
      (url, init) => this.#send(url, init),
    );
    this.#clock = options.clock ?? systemClock;
    this.#notifier = new Notifier(this.#clock, (url, init) => this.#send(url, init));
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
    const controller = this.#inflight.get(id);
    if (controller === undefined) return;
    this.#inflight.delete(id);
    controller.abort(NOTHING_MORE);
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
    for (const controller of this.#inflight.values()) controller.abort(NOTHING_MORE);
    this.#inflight.clear();
    this.#all.abort();
  }

  async #dispatch(body: Uint8Array<ArrayBuffer>): Promise<void> {
    const message = readOutgoing(decoder.decode(body));
    if (message.kind === "unreadable") return;
    if (message.kind === "request" && message.id !== undefined) {
      if (message.method === "initialize") this.#session.initializing(body);
      await this.#request(message, message.id, body);
      return;
    }
    // The modern era cancels by closing the request's stream (done).
    if (message.version !== undefined) return;
    await this.#notifier.post(this.#url, this.#headers(message), body, this.#all.signal);
    if (this.#listen && message.method === "notifications/initialized") void this.#listenStream();
  }

  /**
   * Follows the session's own event stream, its messages delivered as any
   * other; a server that offers none (405, or anything but a stream) is
   * left alone, and the stream ends with the transport.
   */
  async #listenStream(): Promise<void> {
    const headers = this.#session.headers(undefined);
    headers.accept = "text/event-stream";
    const signal = this.#all.signal;
    const sent = await this.#send(this.#url, { method: "GET", headers, signal });
    if (sent.kind !== "answer") return;
    const response = sent.response;
    if (
      response.status !== 200 ||
      !isMediaType(response.headers.get("content-type"), "text/event-stream")
    ) {
      response.body?.cancel().catch(() => {});
      return;
    }
    await followStream(response.body, {
      modern: false,
      message: (data) => this.#deliverText(jsonOnOneLine(data)),
      waiting: () => !this.#ended,
      sleep: async (ms) => await sleepUnless(this.#clock, ms, signal) && !this.#ended,
      resume: (lastEventId) => this.#session.resume(lastEventId, signal),
    }).catch(() => undefined);
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

  async #request(message: OutgoingMessage, id: number | string, body: Uint8Array<ArrayBuffer>) {
    // A request's own controller is aborted by the transport's end too
    // (#abortAll), so no signal per request follows two.
    const controller = new AbortController();
    if (this.#ended) controller.abort(NOTHING_MORE);
    else this.#inflight.set(id, controller);
    const signal = controller.signal;
    const headers = this.#headers(message);
    const tooLong = oversizedHeader(Object.entries(headers));
    if (tooLong !== undefined) {
      this.#inflight.delete(id);
      this.#madeUp(id, headerTooLong(this.#where, message, tooLong, MAX_PARAM_HEADER_BYTES));
      return;
    }
    let sent = await this.#send(this.#url, { method: "POST", headers, body, signal });
    if (
      sent.kind === "answer" && sent.response.status === 404 && this.#session.id !== undefined &&
      message.version === undefined && message.method !== "initialize"
    ) {
      sent.response.body?.cancel().catch(() => {});
      // The server forgot the session: open a new one, then ask again.
      const refused = await this.#session.renew(this.#all.signal);
      if (refused !== undefined) {
        this.#fail(`Server "${this.#name}" at ${this.endpoint}: ${refused}`);
        return;
      }
      if (this.#ended) return;
      const again = { method: "POST", headers: this.#headers(message), body, signal };
      sent = await this.#send(this.#url, again);
    }
    if (sent.kind === "aborted" || !this.#inflight.has(id)) return;
    if (sent.kind !== "answer") {
      this.#unsent(sent, message, id, body);
      return;
    }
    await this.#answer(sent.response, message, id, body);
    this.#inflight.delete(id);
  }

  /**
   * A request that got no answer: before the server ever answered, the
   * client fails (the start says why); after, the request alone does, and a
   * modern one that may have reached the server is lost and re-issued where
   * that does nothing twice.
   */
  #unsent(
    sent: Exclude<Sent, { kind: "answer" } | { kind: "aborted" }>,
    message: OutgoingMessage,
    id: number | string,
    body: Uint8Array<ArrayBuffer>,
  ): void {
    if (!this.#reached) {
      this.#failSent(sent, message);
      return;
    }
    if (sent.kind === "unreachable" && message.version !== undefined) {
      void this.#lost(message, id, body, `could not be sent: ${sent.message}`);
      return;
    }
    this.#inflight.delete(id);
    this.#madeUp(
      id,
      sent.kind === "auth_failed"
        ? notLetIn(this.#where, sent, message)
        : { message: unsentMessage(this.#where, sent, message), data: { status: 0 } },
    );
  }

  async #answer(
    response: Response,
    message: OutgoingMessage,
    id: number | string,
    body: Uint8Array<ArrayBuffer>,
  ) {
    if (await this.#refusal(response, message)) return;
    const status = response.status;
    const type = response.headers.get("content-type");
    const success = status >= 200 && status < 300;
    if (success) this.#reached = true;
    if (message.method === "initialize" && success) this.#session.opened(response);
    if (success && isMediaType(type, "text/event-stream")) {
      await this.#stream(response.body, message, id, body);
      return;
    }
    const read = await readResponseBody(response, MAX_LINE_BYTES);
    if (read.kind === "broken") {
      if (!this.#inflight.has(id)) return;
      if (message.version !== undefined) {
        await this.#lost(message, id, body, `broke its body: ${read.message}`);
      } else this.#fail(`${subject(this.#where, message)} broke: ${read.message}`);
      return;
    }
    if (read.kind === "too_large") {
      this.#fail(
        `${subject(this.#where, message)} was a body of more than ${MAX_LINE_BYTES} bytes ` +
          `(MAX_LINE_BYTES)`,
      );
      return;
    }
    const json = isMediaType(type, "application/json");
    // The body is read whole: nothing is left to close, and aborting a
    // finished fetch would cost the pooled connection.
    if (!this.#inflight.delete(id)) return;
    if (success && json) {
      const answered = answeredId(read.bytes);
      if (answered !== id) {
        // A body that answers another request settles nothing: this one fails now.
        const excerpt = bodyExcerpt(read.bytes);
        this.#madeUp(id, otherAnswer(this.#where, message, answered, status, excerpt));
        return;
      }
      if (message.method === "initialize") this.#session.negotiated(decoder.decode(read.bytes));
      if (isModernList(message)) this.#deliverText(this.#tools.listed(decoder.decode(read.bytes)));
      else this.#deliverBytes(read.bytes);
      return;
    }
    // An error status may still carry the JSON-RPC answer (a modern
    // server answers an unknown method with 404 and -32601, for example).
    const answer = json ? answerOf(read.bytes, id) : undefined;
    if (answer !== undefined) {
      if (answer === "as_is") this.#deliverBytes(read.bytes);
      else this.#deliverText(answer);
      return;
    }
    this.#madeUp(id, noAnswer(this.#where, message, response, bodyExcerpt(read.bytes)));
  }

  /**
   * Reads an answer's event stream (`_http_stream.ts`): a legacy one resumed
   * where the server allows, a modern one that ends before its answer lost.
   */
  async #stream(
    body: ReadableStream<Uint8Array> | null,
    message: OutgoingMessage,
    id: number | string,
    request: Uint8Array<ArrayBuffer>,
  ): Promise<void> {
    const end = await followStream(body, {
      modern: message.version !== undefined,
      message: (data) => {
        if (message.method === "initialize") this.#session.negotiated(data);
        const line = jsonOnOneLine(data);
        this.#deliverText(isModernList(message) ? this.#tools.listed(line) : line);
      },
      // The machine tells, synchronously, when a message was the answer.
      waiting: () => this.#inflight.has(id) && !this.#ended,
      sleep: (ms) => this.#sleep(ms, id),
      resume: (lastEventId) => this.#resume(id, lastEventId),
    });
    if (end.kind === "fault") {
      this.#fail(`${subject(this.#where, message)} broke its event stream: ${end.message}`);
    } else if (end.kind === "lost") await this.#lost(message, id, request, end.how);
    else if (end.kind === "unanswered") {
      const after = end.lastEventId;
      const how = after === "" ? "" : ` (resumed after event ${JSON.stringify(after)})`;
      const words = `Server "${this.#name}" ended its event stream without answering`;
      this.#madeUp(id, { message: `${words} ${message.method}${how}`, data: { status: 200 } });
    }
  }

  /** Asks for a legacy stream again after `lastEventId`; its body, if the server gives it. */
  #resume(id: number | string, lastEventId: string) {
    const controller = this.#inflight.get(id);
    if (controller === undefined) return Promise.resolve(undefined);
    return this.#session.resume(lastEventId, controller.signal);
  }

  /**
   * A modern request whose answer was lost with its stream (the server took
   * the broken stream as its cancellation): re-issued as a new request, with
   * the id the machine gives it, where that does nothing twice, at most
   * `MAX_REISSUES` times; otherwise it fails, saying why.
   */
  async #lost(
    message: OutgoingMessage,
    id: number | string,
    body: Uint8Array<ArrayBuffer>,
    how: string,
  ): Promise<void> {
    this.#inflight.delete(id);
    if (this.#ended) return;
    const next = this.#reissues.lost(message, id, body, {
      repeatable: (tool) => this.#tools.repeatable(tool),
      renumber: (old) => this.#sink?.reissue?.(old),
    });
    if (next.kind === "again") await this.#request({ ...message, id: next.id }, next.id, next.body);
    else if (next.kind === "fail") {
      const lost = `Server "${this.#name}" at ${this.endpoint}: ${message.method} ${how}`;
      this.#madeUp(next.id, { message: `${lost}; ${next.why}`, data: { status: 200 } });
    }
  }

  /** Waits `ms` unless the request is given up first; true when it still waits for its answer. */
  async #sleep(ms: number, id: number | string): Promise<boolean> {
    const controller = this.#inflight.get(id);
    if (controller === undefined) return false;
    const waited = await sleepUnless(this.#clock, ms, controller.signal);
    return waited && this.#inflight.has(id) && !this.#ended;
  }

  /**
   * A 401 or 403 that no sign-in answers ends the client: it is about
   * credentials, never about the era, and no retry can fix it. Answers
   * whether it was one.
   */
  async #refusal(response: Response, message: OutgoingMessage): Promise<boolean> {
    const status = response.status;
    if (status !== 401 && status !== 403) return false;
    const refused = await refusal(response, (text) => this.#credentials.clean(text));
    this.#fail(`${subject(this.#where, message)} ${refused.message}`, refused.http);
    return true;
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
  #failSent(sent: Exclude<Sent, { kind: "answer" } | { kind: "aborted" }>, m: OutgoingMessage) {
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
    if (!this.#ended) this.#sink?.bytes(this.#credentials.cleanBytes(jsonLine(bytes)));
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

/** Whether a message is a modern `tools/list`, whose answer may mark parameters. */
function isModernList(message: OutgoingMessage): boolean {
  return message.method === "tools/list" && message.version !== undefined;
}

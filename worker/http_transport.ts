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
 * the server forgets it (404), and is deleted at retirement. A stream that
 * drops before its answer is resumed with `Last-Event-ID` when the server
 * gave event ids. Every body and every event is capped at 16 MiB; a request
 * the machine gives up on (its deadline, its caller) has its stream closed,
 * which in the modern era is also how it is cancelled.
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

import { MAX_LINE_BYTES } from "../codec/framing.ts";
import { ok, type Result } from "../codec/result.ts";
import { joinBytes } from "../codec/_bytes.ts";
import { SseDecoder } from "../codec/sse.ts";
import {
  bodyExcerpt,
  displayUrl,
  isMediaType,
  jsonOnOneLine,
  LAST_EVENT_ID_HEADER,
  type OutgoingMessage,
  readOutgoing,
} from "../codec/streamable_http.ts";
import { type Clock, systemClock } from "./clock.ts";
import type { HttpFailure, StartFailure } from "../thread/outcomes.ts";
import type { RemoteEvidence } from "../thread/evidence.ts";
import { httpFailure } from "./judge.ts";
import { answerOf, readBody, readEvents, refusal, send, type Sent } from "./_http_read.ts";
import { HttpSession } from "./_http_session.ts";
import { ToolMarks } from "./_http_tools.ts";
import type { ServerControl, SessionControl, Transport, TransportSink } from "./transport.ts";

/** How long a resumption waits when the server named no `retry`, in ms: 1 s. */
export const DEFAULT_RESUME_DELAY_MS = 1_000;
/** The longest `retry` a server may ask a resumption to wait, in ms: 10 s. */
export const MAX_RESUME_DELAY_MS = 10_000;
/** The most times one request's dropped stream is resumed: 5. */
export const MAX_RESUMPTIONS = 5;
/**
 * The JSON-RPC error code of an answer the client makes up for a request
 * whose HTTP answer was not a JSON-RPC message (a status without one, an
 * empty 202, a stream that ended without the answer): -32000, the first
 * code JSON-RPC leaves to implementations. Its `data` carries the status.
 */
export const HTTP_ANSWER_ERROR = -32000;

/** What to reach, and how. */
export type HttpOptions = {
  /** The server's name, for messages. */
  name: string;
  /** The MCP endpoint. */
  url: string;
  /** Headers every request carries (an `Authorization`, for example). */
  headers: Readonly<Record<string, string>>;
  /** The clock of resumption delays; the system clock by default. */
  clock?: Clock;
};

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const NEWLINE = 0x0a;
const RETURN = 0x0d;
const SPACE = 0x20;

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

  /** Makes a transport for an endpoint; `TypeError` for a URL that is not http or https. */
  constructor(options: HttpOptions) {
    this.#name = options.name;
    this.#url = new URL(options.url);
    if (this.#url.protocol !== "http:" && this.#url.protocol !== "https:") {
      throw new TypeError(`Cannot reach server "${options.name}": its URL is not http or https`);
    }
    this.#session = new HttpSession(this.#url, options.headers);
    this.#clock = options.clock ?? systemClock;
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
    controller.abort();
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
    const sent = await send(this.#url, {
      method: "POST",
      headers: this.#headers(message),
      body,
      signal: this.#all.signal,
    });
    if (sent.kind === "answer") await this.#refusal(sent.response, message);
    else if (sent.kind !== "aborted") this.#failSent(sent, message);
  }

  async #request(message: OutgoingMessage, id: number | string, body: Uint8Array<ArrayBuffer>) {
    const controller = new AbortController();
    this.#inflight.set(id, controller);
    const signal = AbortSignal.any([this.#all.signal, controller.signal]);
    let sent = await send(this.#url, {
      method: "POST",
      headers: this.#headers(message),
      body,
      signal,
    });
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
      sent = await send(this.#url, {
        method: "POST",
        headers: this.#headers(message),
        body,
        signal,
      });
    }
    if (sent.kind === "aborted" || !this.#inflight.has(id)) return;
    if (sent.kind !== "answer") {
      this.#failSent(sent, message);
      return;
    }
    await this.#answer(sent.response, message, id);
    this.#inflight.delete(id);
  }

  async #answer(response: Response, message: OutgoingMessage, id: number | string) {
    if (await this.#refusal(response, message)) return;
    const status = response.status;
    const type = response.headers.get("content-type");
    if (message.method === "initialize" && status >= 200 && status < 300) {
      this.#session.opened(response);
    }
    if (status >= 200 && status < 300 && isMediaType(type, "text/event-stream")) {
      await this.#stream(response.body, message, id);
      return;
    }
    const read = await readBody(response.body, MAX_LINE_BYTES);
    if (read.kind === "broken") {
      if (this.#inflight.has(id)) this.#fail(`${this.#what(message)} broke: ${read.message}`);
      return;
    }
    if (read.kind === "too_large") {
      this.#fail(
        `${this.#what(message)} was a body of more than ${MAX_LINE_BYTES} bytes ` +
          `(MAX_LINE_BYTES)`,
      );
      return;
    }
    const json = isMediaType(type, "application/json");
    // The body is read whole: nothing is left to close, and aborting a
    // finished fetch would cost the pooled connection.
    if (!this.#inflight.delete(id)) return;
    if (status >= 200 && status < 300 && json) {
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
    const what = status === 202 || read.bytes.length === 0
      ? `HTTP ${status} ${response.statusText} without an answer`
      : `HTTP ${status} ${response.statusText}: ${bodyExcerpt(read.bytes)}`;
    this.#madeUpAnswer(id, `Server "${this.#name}" answered ${message.method} with ${what}`, {
      status,
      body: bodyExcerpt(read.bytes),
    });
  }

  /** Reads an answer's event stream, resuming it where the server allows. */
  async #stream(
    body: ReadableStream<Uint8Array> | null,
    message: OutgoingMessage,
    id: number | string,
  ): Promise<void> {
    let lastEventId = "";
    let retryMs: number | undefined;
    for (let resumptions = 0;; resumptions++) {
      const events = new SseDecoder();
      const end = await readEvents(body, events, (event) => {
        if (event.type === "message" && event.data !== "") {
          if (message.method === "initialize") this.#session.negotiated(event.data);
          const line = jsonOnOneLine(event.data);
          this.#deliverText(isModernList(message) ? this.#tools.listed(line) : line);
        }
        // The machine tells, synchronously, when this was the answer.
        return this.#inflight.has(id) && !this.#ended;
      });
      if (events.lastEventId !== "") lastEventId = events.lastEventId;
      retryMs = events.retryMs ?? retryMs;
      if (!this.#inflight.has(id) || this.#ended || end.kind === "stopped") return;
      if (end.kind === "fault") {
        this.#fail(`${this.#what(message)} broke its event stream: ${end.fault.message}`);
        return;
      }
      if (lastEventId === "" || resumptions >= MAX_RESUMPTIONS) break;
      const delay = Math.min(retryMs ?? DEFAULT_RESUME_DELAY_MS, MAX_RESUME_DELAY_MS);
      if (!(await this.#sleep(delay, id))) return;
      const headers = this.#session.headers(undefined);
      headers.set("Accept", "text/event-stream");
      headers.set(LAST_EVENT_ID_HEADER, lastEventId);
      const controller = this.#inflight.get(id);
      if (controller === undefined) return;
      const sent = await send(this.#url, {
        method: "GET",
        headers,
        signal: AbortSignal.any([this.#all.signal, controller.signal]),
      });
      if (sent.kind === "aborted" || !this.#inflight.has(id)) return;
      if (
        sent.kind !== "answer" || sent.response.status !== 200 ||
        !isMediaType(sent.response.headers.get("content-type"), "text/event-stream")
      ) {
        if (sent.kind === "answer") sent.response.body?.cancel().catch(() => {});
        break;
      }
      body = sent.response.body;
    }
    const how = lastEventId === "" ? "" : ` (resumed after event ${JSON.stringify(lastEventId)})`;
    this.#madeUpAnswer(
      id,
      `Server "${this.#name}" ended its event stream without answering ${message.method}${how}`,
      { status: 200 },
    );
  }

  /** Waits `ms` unless the request is given up first; true when it still waits for its answer. */
  #sleep(ms: number, id: number | string): Promise<boolean> {
    return new Promise((resolve) => {
      const controller = this.#inflight.get(id);
      if (controller === undefined) return resolve(false);
      const signal = AbortSignal.any([this.#all.signal, controller.signal]);
      const wake = () => {
        this.#clock.clearTimer(timer);
        resolve(false);
      };
      const timer = this.#clock.setTimer(ms, () => {
        signal.removeEventListener("abort", wake);
        resolve(this.#inflight.has(id) && !this.#ended);
      });
      signal.addEventListener("abort", wake, { once: true });
    });
  }

  /**
   * A 401 or 403 ends the client: it is about credentials, never about the
   * era, and no retry can fix it. Answers whether it was one.
   */
  async #refusal(response: Response, message: OutgoingMessage): Promise<boolean> {
    const status = response.status;
    if (status !== 401 && status !== 403) {
      if (message.kind !== "request") response.body?.cancel().catch(() => {});
      return false;
    }
    const refused = await refusal(response);
    this.#fail(`${this.#what(message)} ${refused.message}`, refused.http);
    return true;
  }

  /** The headers of the POST carrying `message`, its parameter headers included. */
  #headers(message: OutgoingMessage): Headers {
    const headers = this.#session.headers(message);
    if (message.version === undefined) return headers;
    for (const [name, value] of this.#tools.headers(message)) headers.set(name, value);
    return headers;
  }

  #what(message: OutgoingMessage): string {
    return `The answer of server "${this.#name}" at ${this.endpoint} to ${
      message.method ?? "a response"
    }`;
  }

  #failSent(sent: Exclude<Sent, { kind: "answer" } | { kind: "aborted" }>, m: OutgoingMessage) {
    if (sent.kind === "unreachable") {
      this.#fail(`Cannot reach server "${this.#name}" at ${this.endpoint}: ${sent.message}`);
      return;
    }
    this.#fail(
      `Server "${this.#name}" at ${this.endpoint} redirected ${m.method ?? "a response"} ` +
        `(HTTP ${sent.status}) to ${sent.location}; only redirects within its origin ` +
        `that keep the request are followed`,
    );
  }

  /** A made-up JSON-RPC error for a request the server answered without one. */
  #madeUpAnswer(id: number | string, message: string, data: Record<string, string | number>) {
    if (this.#ended) return;
    const error = { code: HTTP_ANSWER_ERROR, message, data };
    this.#deliverText(JSON.stringify({ jsonrpc: "2.0", id, error }));
  }

  #deliverText(line: string): void {
    if (this.#ended) return;
    this.#sink?.bytes(encoder.encode(`${line}\n`));
  }

  /** Hands a JSON body to the machine as one line (its raw line breaks are whitespace). */
  #deliverBytes(bytes: Uint8Array): void {
    if (this.#ended) return;
    const line = new Uint8Array(bytes.length + 1);
    line.set(bytes);
    for (
      let i = line.indexOf(NEWLINE);
      i !== -1 && i < bytes.length;
      i = line.indexOf(NEWLINE, i)
    ) {
      line[i] = SPACE;
    }
    for (let i = line.indexOf(RETURN); i !== -1; i = line.indexOf(RETURN, i)) line[i] = SPACE;
    line[bytes.length] = NEWLINE;
    this.#sink?.bytes(line);
  }

  #fail(message: string, http?: HttpFailure): void {
    if (this.#ended) return;
    this.#abortAll();
    this.#refused = httpFailure(message, http);
    this.#sink?.end({ kind: "http_failed", message });
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

// Private to client/transport/http/: the state a legacy session keeps over HTTP (the
// id the server gave with its `initialize` answer, the negotiated version,
// the `initialize` request itself) and the headers every request carries,
// in either era. When the server forgets the session (404), `renew` sends
// the same `initialize` again, checks that the version did not change, and
// says `notifications/initialized`, once for all the requests that met the
// 404 together.

import { MAX_LINE_BYTES } from "../../../codec/framing.ts";
import { isJsonObject, parseJson } from "../../../codec/json.ts";
import { SseDecoder } from "../../../codec/sse.ts";
import {
  ACCEPT_BOTH,
  displayUrl,
  isMediaType,
  LAST_EVENT_ID_HEADER,
  modernHeaders,
  type OutgoingMessage,
  PROTOCOL_VERSION_HEADER,
  SESSION_HEADER,
} from "../../../codec/streamable_http.ts";
import { type HeaderList, readBody, type Sent } from "./_read.ts";
import type { Clock } from "../clock.ts";
import type { RemoteEvidence } from "../../thread/evidence.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const SESSION = SESSION_HEADER.toLowerCase();
const PROTOCOL_VERSION = PROTOCOL_VERSION_HEADER.toLowerCase();

/**
 * The share of a retirement's deadline its session's `DELETE` may take: 0.5.
 * A `DELETE` that never answers then ends as `session: "unconfirmed"`,
 * saying so, well inside the retirement's deadline, instead of running the
 * whole retirement out.
 */
export const DELETE_DEADLINE_SHARE = 0.5;

/** How a session sends a request: the transport's send, with its credentials. */
export type SessionSend = (
  url: URL,
  init: {
    method: string;
    headers: HeaderList;
    body?: Uint8Array<ArrayBuffer>;
    signal: AbortSignal;
  },
) => Promise<Sent>;

/** How long a session's renewal may take, on which clock, and who hears that one succeeded. */
export type Renewal = { clock: Clock; timeoutMs: number; renewed?: () => void };

/** One endpoint's session state and headers. */
export class HttpSession {
  #url: URL;
  #send: SessionSend;
  #headers: HeaderList;
  #renewal: Renewal;
  #id: string | undefined;
  #version: string | undefined;
  #initialize: Uint8Array<ArrayBuffer> | undefined;
  #renewing: Promise<string | undefined> | undefined;

  constructor(
    url: URL,
    headers: Readonly<Record<string, string>>,
    send: SessionSend,
    renewal: Renewal,
  ) {
    this.#url = url;
    this.#headers = lowerCased(headers);
    this.#send = send;
    this.#renewal = renewal;
  }

  /** The id the server gave the session, if it gave one. */
  get id(): string | undefined {
    return this.#id;
  }

  /** Keeps the `initialize` request, to open a session again with it. */
  initializing(body: Uint8Array<ArrayBuffer>): void {
    this.#initialize = body;
  }

  /** Keeps the session id of an answer to `initialize`. */
  opened(response: Response): void {
    this.#id = response.headers.get(SESSION_HEADER) ?? undefined;
  }

  /** Keeps the version an `initialize` result negotiated, for the header of what follows. */
  negotiated(text: string): void {
    const parsed = parseJson(text);
    if (!parsed.ok || !isJsonObject(parsed.value)) return;
    const result = parsed.value.result;
    if (isJsonObject(result) && typeof result.protocolVersion === "string") {
      this.#version = result.protocolVersion;
    }
  }

  /**
   * The headers of the request carrying `message` (`undefined`: a GET or a
   * DELETE of the session): a modern message says its own version,
   * method and name; a legacy one the session and the version.
   */
  headers(message: OutgoingMessage | undefined): HeaderList {
    const headers: HeaderList = { ...this.#headers };
    headers["content-type"] = "application/json";
    headers.accept = ACCEPT_BOTH;
    if (message !== undefined && message.version !== undefined) {
      for (const [name, value] of modernHeaders(message)) headers[name.toLowerCase()] = value;
      return headers;
    }
    if (message?.method === "initialize") return headers;
    if (this.#id !== undefined) headers[SESSION] = this.#id;
    if (this.#version !== undefined) headers[PROTOCOL_VERSION] = this.#version;
    return headers;
  }

  /**
   * Ends the session within `retirementMs`: a `DELETE` with its id when the
   * server gave one, within {@linkcode DELETE_DEADLINE_SHARE} of it. Says
   * what was done; a stateless session has nothing to end.
   */
  async end(retirementMs: number, clock: Clock): Promise<RemoteEvidence> {
    const url = displayUrl(this.#url);
    const session = this.#id;
    if (session === undefined) return { kind: "remote", url, session: "stateless" };
    const deadlineMs = Math.floor(retirementMs * DELETE_DEADLINE_SHARE);
    const controller = new AbortController();
    const timer = clock.setTimer(deadlineMs, () => controller.abort());
    try {
      const sent = await this.#send(this.#url, {
        method: "DELETE",
        headers: this.headers(undefined),
        signal: controller.signal,
      });
      if (sent.kind !== "answer") {
        const message = sent.kind === "aborted"
          ? `no answer to DELETE within ${deadlineMs} ms (DELETE_DEADLINE_SHARE of the ` +
            `retirement's ${retirementMs} ms); the server may keep the session until it expires it`
          : sent.kind === "unreachable"
          ? sent.message
          : sent.kind === "auth_failed"
          ? `DELETE was refused: ${sent.failure.message}`
          : `DELETE was redirected to ${sent.location}`;
        return { kind: "remote", url, session: "unconfirmed", message };
      }
      const status = sent.response.status;
      sent.response.body?.cancel().catch(() => {});
      if (status >= 200 && status < 300) return { kind: "remote", url, session: "deleted", status };
      if (status === 404) return { kind: "remote", url, session: "already_ended", status };
      if (status === 405) return { kind: "remote", url, session: "not_deletable", status };
      const message = `DELETE answered HTTP ${status}`;
      return { kind: "remote", url, session: "unconfirmed", status, message };
    } finally {
      clock.clearTimer(timer);
    }
  }

  /** A legacy stream again, after `lastEventId`; its body, or `undefined` when not given. */
  async resume(
    lastEventId: string,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array> | null | undefined> {
    const headers = this.headers(undefined);
    headers.accept = "text/event-stream";
    headers[LAST_EVENT_ID_HEADER.toLowerCase()] = lastEventId;
    const sent = await this.#send(this.#url, { method: "GET", headers, signal });
    if (sent.kind !== "answer") return undefined;
    const { response } = sent;
    const type = response.headers.get("content-type");
    if (response.status === 200 && isMediaType(type, "text/event-stream")) return response.body;
    response.body?.cancel().catch(() => {});
    return undefined;
  }

  /**
   * Opens a new session after the server forgot `forgotten`, the one a
   * request went with (one already replaced needs nothing); concurrent
   * callers share one attempt, which `signal` (the transport's end) or the
   * renewal's deadline (the connect timeout) gives up. Resolves `undefined`
   * when it is open, or why it could not be. Until a new session is open,
   * requests still carry the forgotten id, so they meet the same 404 and
   * wait for the same renewal instead of going out with none.
   */
  renew(signal: AbortSignal, forgotten: string): Promise<string | undefined> {
    // A request sent with a session already replaced just goes again.
    if (this.#renewing === undefined && this.#id !== forgotten) return Promise.resolve(undefined);
    this.#renewing ??= this.#renewWithin(signal).finally(() => this.#renewing = undefined);
    return this.#renewing;
  }

  async #renewWithin(signal: AbortSignal): Promise<string | undefined> {
    const { clock, timeoutMs } = this.#renewal;
    const controller = new AbortController();
    const stop = () => controller.abort();
    if (signal.aborted) controller.abort();
    signal.addEventListener("abort", stop, { once: true });
    let late = false;
    const timer = clock.setTimer(timeoutMs, () => {
      late = true;
      controller.abort();
    });
    try {
      const stale = this.#id;
      const refused = await this.#reinitialize(controller.signal);
      if (!late) {
        if (refused === undefined) this.#renewal.renewed?.();
        return refused;
      }
      return `it forgot session ${stale} and did not open a new one within ${timeoutMs} ms ` +
        "(its connect timeout: connect_timeout_ms in its catalog entry, connectTimeoutMs in " +
        "a ServerSpec)";
    } finally {
      clock.clearTimer(timer);
      signal.removeEventListener("abort", stop);
    }
  }

  async #reinitialize(signal: AbortSignal): Promise<string | undefined> {
    const body = this.#initialize;
    const stale = this.#id;
    if (body === undefined) return `it forgot session ${stale} before any initialize`;
    const sent = await this.#send(this.#url, {
      method: "POST",
      headers: this.headers({ kind: "request", method: "initialize" }),
      body,
      signal,
    });
    if (sent.kind !== "answer" || sent.response.status !== 200) {
      if (sent.kind === "answer") sent.response.body?.cancel().catch(() => {});
      const how = sent.kind === "answer" ? `HTTP ${sent.response.status}` : sent.kind;
      return `it forgot session ${stale} and refused a new one (${how})`;
    }
    this.opened(sent.response);
    const read = await readBody(sent.response.body, MAX_LINE_BYTES);
    if (read.kind !== "whole") {
      const how = read.kind === "broken" ? read.message : `more than ${read.limit} bytes`;
      return `it forgot session ${stale}, and the answer to a new initialize broke (${how})`;
    }
    const type = sent.response.headers.get("content-type");
    const text = isMediaType(type, "text/event-stream")
      ? firstEventData(read.bytes)
      : decoder.decode(read.bytes);
    const before = this.#version;
    this.negotiated(text);
    if (this.#version !== before) {
      return `it opened a new session with version ${this.#version} instead of ${before}`;
    }
    const told = await this.#send(this.#url, {
      method: "POST",
      headers: this.headers({ kind: "notification", method: "notifications/initialized" }),
      body: encoder.encode('{"jsonrpc":"2.0","method":"notifications/initialized"}'),
      signal,
    });
    if (told.kind === "answer") told.response.body?.cancel().catch(() => {});
    return undefined;
  }
}

/** The data of the first event of an event-stream body (an `initialize` answered as a stream). */
function firstEventData(bytes: Uint8Array): string {
  const events = new SseDecoder();
  const pushed = events.push(bytes);
  const first = pushed.ok ? pushed.value.find((e) => e.data !== "") : undefined;
  return first?.data ?? "";
}

/** `headers` with every name in lower case, the last of two that differ only in case kept. */
function lowerCased(headers: Readonly<Record<string, string>>): HeaderList {
  const out: HeaderList = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

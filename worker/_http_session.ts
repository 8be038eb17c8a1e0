// Private to worker/: the state a legacy session keeps over HTTP (the
// id the server gave with its `initialize` answer, the negotiated version,
// the `initialize` request itself) and the headers every request carries,
// in either era. When the server forgets the session (404), `renew` sends
// the same `initialize` again, checks that the version did not change, and
// says `notifications/initialized`, once for all the requests that met the
// 404 together.

import { MAX_LINE_BYTES } from "../codec/framing.ts";
import { isJsonObject, parseJson } from "../codec/json.ts";
import { SseDecoder } from "../codec/sse.ts";
import {
  ACCEPT_BOTH,
  displayUrl,
  isMediaType,
  modernHeaders,
  type OutgoingMessage,
  PROTOCOL_VERSION_HEADER,
  SESSION_HEADER,
} from "../codec/streamable_http.ts";
import { readBody, send } from "./_http_read.ts";
import type { Clock } from "./clock.ts";
import type { RemoteEvidence } from "../thread/evidence.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One endpoint's session state and headers. */
export class HttpSession {
  #url: URL;
  #headers: Readonly<Record<string, string>>;
  #id: string | undefined;
  #version: string | undefined;
  #initialize: Uint8Array<ArrayBuffer> | undefined;
  #renewing: Promise<string | undefined> | undefined;

  constructor(url: URL, headers: Readonly<Record<string, string>>) {
    this.#url = url;
    this.#headers = headers;
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
  headers(message: OutgoingMessage | undefined): Headers {
    const headers = new Headers(this.#headers);
    headers.set("Content-Type", "application/json");
    headers.set("Accept", ACCEPT_BOTH);
    if (message !== undefined && message.version !== undefined) {
      for (const [name, value] of modernHeaders(message)) headers.set(name, value);
      return headers;
    }
    if (message?.method === "initialize") return headers;
    if (this.#id !== undefined) headers.set(SESSION_HEADER, this.#id);
    if (this.#version !== undefined) headers.set(PROTOCOL_VERSION_HEADER, this.#version);
    return headers;
  }

  /**
   * Ends the session within `deadlineMs`: a `DELETE` with its id when the
   * server gave one. Says what was done; a stateless session has nothing
   * to end.
   */
  async end(deadlineMs: number, clock: Clock): Promise<RemoteEvidence> {
    const url = displayUrl(this.#url);
    const session = this.#id;
    if (session === undefined) return { kind: "remote", url, session: "stateless" };
    const controller = new AbortController();
    const timer = clock.setTimer(deadlineMs, () => controller.abort());
    try {
      const sent = await send(this.#url, {
        method: "DELETE",
        headers: this.headers(undefined),
        signal: controller.signal,
      });
      if (sent.kind !== "answer") {
        const message = sent.kind === "aborted"
          ? `no answer to DELETE within ${deadlineMs} ms`
          : sent.kind === "unreachable"
          ? sent.message
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

  /**
   * Opens a new session after the server forgot this one; concurrent
   * callers share one attempt. Resolves `undefined` when it is open, or
   * why it could not be.
   */
  renew(signal: AbortSignal): Promise<string | undefined> {
    this.#renewing ??= this.#reinitialize(signal).finally(() => this.#renewing = undefined);
    return this.#renewing;
  }

  async #reinitialize(signal: AbortSignal): Promise<string | undefined> {
    const body = this.#initialize;
    const stale = this.#id;
    if (body === undefined) return `it forgot session ${stale} before any initialize`;
    this.#id = undefined;
    const sent = await send(this.#url, {
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
    const type = sent.response.headers.get("content-type");
    const text = isMediaType(type, "text/event-stream")
      ? firstEventData(read.bytes)
      : decoder.decode(read.bytes);
    const before = this.#version;
    this.negotiated(text);
    if (this.#version !== before) {
      return `it opened a new session with version ${this.#version} instead of ${before}`;
    }
    const told = await send(this.#url, {
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

// Private to client/transport/http/: the exchange of each request the machine writes, from
// its POST to its answer. The POST carries the session's headers and the
// request's parameter headers (one too long fails the request alone); a
// legacy session the server forgot (404) is opened again and the request
// asked again; the answer is read as one JSON body or followed as an event
// stream (`_stream.ts`); a 401 or 403 no sign-in answers ends the client; a
// modern request lost with its stream is re-issued where that does nothing
// twice (`_reissue.ts`), and fails, saying why, where it is not.
//
// Who closes what: the exchanges own each request's `AbortController` from
// its POST until its answer is read whole, its stream is followed to the
// end, or the transport says it needs nothing more (`done`, `abandonAll`);
// whatever reaches the machine goes through the transport (`ExchangeHost`).

import { MAX_LINE_BYTES } from "../../../codec/framing.ts";
import {
  bodyExcerpt,
  isMediaType,
  jsonOnOneLine,
  type OutgoingMessage,
} from "../../../codec/streamable_http.ts";
import { MAX_PARAM_HEADER_BYTES, oversizedHeader } from "../../../codec/param_headers.ts";
import type { Clock } from "../clock.ts";
import type { HttpFailure } from "../../thread/outcomes.ts";
import {
  answeredId,
  answerOf,
  type HeaderList,
  readResponseBody,
  refusal,
  type Sent,
} from "./_read.ts";
import { followStream, sleepUnless } from "./_stream.ts";
import {
  headerTooLong,
  type MadeUp,
  noAnswer,
  notLetIn,
  otherAnswer,
  subject,
  unsentMessage,
  type Where,
} from "./_words.ts";
import type { HttpSession } from "./_session.ts";
import type { ToolMarks } from "./_tools.ts";
import { Reissues } from "./_reissue.ts";
import type { SentCredentials } from "./_credentials.ts";

const decoder = new TextDecoder();
/**
 * Why a request's stream is closed once the machine needs nothing more: one
 * reason for all, since `abort()` without one makes a `DOMException`, with
 * its stack, per call (about 12 µs of the worker's CPU per call over HTTP,
 * measured with `--cpu-prof`; BENCHMARKS.md).
 */
const NOTHING_MORE = new DOMException("The request needs nothing more", "AbortError");

/** A request that got no answer, for a reason other than its abort. */
export type Unsent = Exclude<Sent, { kind: "answer" } | { kind: "aborted" }>;

/** What the exchanges need of their transport. */
export type ExchangeHost = {
  /** The server's name, for messages. */
  name: string;
  /** The MCP endpoint. */
  url: URL;
  /** The endpoint as it may be shown (no credentials, no query). */
  endpoint: string;
  /** The clock of resumption delays. */
  clock: Clock;
  /** The legacy session, and the headers every request carries. */
  session: HttpSession;
  /** The marks of the modern tool listing. */
  tools: ToolMarks;
  /** Every credential sent, scrubbed from a refusal's words. */
  credentials: SentCredentials;
  /** Aborted when the transport ends. */
  signal: AbortSignal;
  /** Whether the transport has ended. */
  ended(): boolean;
  /** Sends a request, with the server's credentials when it signs in. */
  send(
    url: URL,
    init: {
      method: string;
      headers: HeaderList;
      body?: Uint8Array<ArrayBuffer>;
      signal: AbortSignal;
    },
  ): Promise<Sent>;
  /** The headers of the POST carrying `message`, its parameter headers included. */
  headers(message: OutgoingMessage): HeaderList;
  /** The id the machine gives a re-issued request, or `undefined` when nothing waits for it. */
  renumber(id: number): number | undefined;
  /** Hands a line to the machine. */
  deliverText(line: string): void;
  /** Hands a JSON body to the machine as one line. */
  deliverBytes(bytes: Uint8Array): void;
  /** A made-up JSON-RPC error for a request the server answered without one. */
  madeUp(id: number | string, words: MadeUp): void;
  /** Ends the client, saying why. */
  fail(message: string, http?: HttpFailure): void;
  /** A request got no answer before the server ever answered: the client fails, saying why. */
  failSent(sent: Unsent, message: OutgoingMessage): void;
};

/** The requests of one transport still waiting, and what becomes of each one's answer. */
export class Exchanges {
  #host: ExchangeHost;
  #inflight = new Map<number | string, AbortController>();
  /** Whether the server has answered a request with success: failures are then one request's. */
  #reached = false;
  #reissues = new Reissues();

  /** The exchanges of the transport `host` describes. */
  constructor(host: ExchangeHost) {
    this.#host = host;
  }

  /** The machine needs nothing more for request `id`: its stream, if open, is closed. */
  done(id: number | string): void {
    const controller = this.#inflight.get(id);
    if (controller === undefined) return;
    this.#inflight.delete(id);
    controller.abort(NOTHING_MORE);
  }

  /** Every request still open is given up. */
  abandonAll(): void {
    for (const controller of this.#inflight.values()) controller.abort(NOTHING_MORE);
    this.#inflight.clear();
  }

  /** POSTs request `id` and hands on what becomes of its answer. */
  async request(
    message: OutgoingMessage,
    id: number | string,
    body: Uint8Array<ArrayBuffer>,
  ): Promise<void> {
    // A request's own controller is aborted by the transport's end too
    // (its #abortAll, by abandonAll), so no signal per request follows two.
    const controller = new AbortController();
    if (this.#host.ended()) controller.abort(NOTHING_MORE);
    else this.#inflight.set(id, controller);
    const signal = controller.signal;
    const headers = this.#host.headers(message);
    const tooLong = oversizedHeader(Object.entries(headers));
    if (tooLong !== undefined) {
      this.#inflight.delete(id);
      this.#host.madeUp(id, headerTooLong(this.#where, message, tooLong, MAX_PARAM_HEADER_BYTES));
      return;
    }
    // The session the request went with: a 404 of one already replaced renews nothing.
    const sentWith = this.#host.session.id;
    let sent = await this.#host.send(this.#host.url, { method: "POST", headers, body, signal });
    if (
      sent.kind === "answer" && sent.response.status === 404 &&
      sentWith !== undefined &&
      message.version === undefined && message.method !== "initialize"
    ) {
      sent.response.body?.cancel().catch(() => {});
      // The server forgot the session: open a new one, then ask again.
      const refused = await this.#host.session.renew(this.#host.signal, sentWith);
      if (refused !== undefined) {
        this.#host.fail(`Server "${this.#host.name}" at ${this.#host.endpoint}: ${refused}`);
        return;
      }
      if (this.#host.ended()) return;
      const again = { method: "POST", headers: this.#host.headers(message), body, signal };
      sent = await this.#host.send(this.#host.url, again);
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
    sent: Unsent,
    message: OutgoingMessage,
    id: number | string,
    body: Uint8Array<ArrayBuffer>,
  ): void {
    if (!this.#reached) {
      this.#host.failSent(sent, message);
      return;
    }
    if (sent.kind === "unreachable" && message.version !== undefined) {
      void this.#lost(message, id, body, `could not be sent: ${sent.message}`);
      return;
    }
    this.#inflight.delete(id);
    this.#host.madeUp(
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
    if (message.method === "initialize" && success) this.#host.session.opened(response);
    if (success && isMediaType(type, "text/event-stream")) {
      await this.#stream(response.body, message, id, body);
      return;
    }
    const read = await readResponseBody(response, MAX_LINE_BYTES);
    if (read.kind === "broken") {
      if (!this.#inflight.has(id)) return;
      if (message.version !== undefined) {
        await this.#lost(message, id, body, `broke its body: ${read.message}`);
        return;
      }
      // A legacy request fails alone, as one whose event stream broke: the
      // server answered, and later requests may still be answered.
      this.#inflight.delete(id);
      this.#host.madeUp(id, {
        message: `${subject(this.#where, message)} broke: ${read.message}`,
        data: { status },
      });
      return;
    }
    if (read.kind === "too_large") {
      this.#host.fail(
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
        this.#host.madeUp(id, otherAnswer(this.#where, message, answered, status, excerpt));
        return;
      }
      if (message.method === "initialize") {
        this.#host.session.negotiated(decoder.decode(read.bytes));
      }
      if (isModernList(message)) {
        this.#host.deliverText(this.#host.tools.listed(decoder.decode(read.bytes)));
      } else this.#host.deliverBytes(read.bytes);
      return;
    }
    // An error status may still carry the JSON-RPC answer (a modern
    // server answers an unknown method with 404 and -32601, for example).
    const answer = json ? answerOf(read.bytes, id) : undefined;
    if (answer !== undefined) {
      if (answer === "as_is") this.#host.deliverBytes(read.bytes);
      else this.#host.deliverText(answer);
      return;
    }
    this.#host.madeUp(id, noAnswer(this.#where, message, response, bodyExcerpt(read.bytes)));
  }

  /**
   * Reads an answer's event stream (`_stream.ts`): a legacy one resumed
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
        if (message.method === "initialize") this.#host.session.negotiated(data);
        const line = jsonOnOneLine(data);
        this.#host.deliverText(isModernList(message) ? this.#host.tools.listed(line) : line);
      },
      // The machine tells, synchronously, when a message was the answer.
      waiting: () => this.#inflight.has(id) && !this.#host.ended(),
      sleep: (ms) => this.#sleep(ms, id),
      resume: (lastEventId) => this.#resume(id, lastEventId),
    });
    if (end.kind === "fault") {
      this.#host.fail(`${subject(this.#where, message)} broke its event stream: ${end.message}`);
    } else if (end.kind === "lost") await this.#lost(message, id, request, end.how);
    else if (end.kind === "unanswered") {
      const after = end.lastEventId;
      const how = after === "" ? "" : ` (resumed after event ${JSON.stringify(after)})`;
      const words = end.broke === undefined
        ? `Server "${this.#host.name}" ended its event stream without answering ${message.method}`
        : `Server "${this.#host.name}"'s event stream broke before it answered ` +
          `${message.method}: ${end.broke}`;
      this.#host.madeUp(id, { message: `${words}${how}`, data: { status: 200 } });
    }
  }

  /** Asks for a legacy stream again after `lastEventId`; its body, if the server gives it. */
  #resume(id: number | string, lastEventId: string) {
    const controller = this.#inflight.get(id);
    if (controller === undefined) return Promise.resolve(undefined);
    return this.#host.session.resume(lastEventId, controller.signal);
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
    if (this.#host.ended()) return;
    const next = this.#reissues.lost(message, id, body, {
      repeatable: (tool) => this.#host.tools.repeatable(tool),
      renumber: (old) => this.#host.renumber(old),
    });
    if (next.kind === "again") await this.request({ ...message, id: next.id }, next.id, next.body);
    else if (next.kind === "fail") {
      const lost =
        `Server "${this.#host.name}" at ${this.#host.endpoint}: ${message.method} ${how}`;
      this.#host.madeUp(next.id, { message: `${lost}; ${next.why}`, data: { status: 200 } });
    }
  }

  /** Waits `ms` unless the request is given up first; true when it still waits for its answer. */
  async #sleep(ms: number, id: number | string): Promise<boolean> {
    const controller = this.#inflight.get(id);
    if (controller === undefined) return false;
    const waited = await sleepUnless(this.#host.clock, ms, controller.signal);
    return waited && this.#inflight.has(id) && !this.#host.ended();
  }

  /**
   * A 401 or 403 that no sign-in answers ends the client: it is about
   * credentials, never about the era, and no retry can fix it. Answers
   * whether it was one.
   */
  async #refusal(response: Response, message: OutgoingMessage): Promise<boolean> {
    const status = response.status;
    if (status !== 401 && status !== 403) return false;
    const refused = await refusal(response, (text) => this.#host.credentials.clean(text));
    this.#host.fail(`${subject(this.#where, message)} ${refused.message}`, refused.http);
    return true;
  }

  get #where(): Where {
    return { name: this.#host.name, endpoint: this.#host.endpoint };
  }
}

/** Whether a message is a modern `tools/list`, whose answer may mark parameters. */
function isModernList(message: OutgoingMessage): boolean {
  return message.method === "tools/list" && message.version !== undefined;
}

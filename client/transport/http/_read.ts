// Private to client/transport/http/: reading an HTTP answer's body within a byte cap, as one
// JSON body or as an event stream, and the POST that follows a redirect only
// within the endpoint's origin. Every read can be aborted; an aborted or
// broken read is a value, never an exception.

import type { SseDecoder, SseEvent, SseFault } from "../../../codec/sse.ts";
import { joinBytes } from "../../../codec/_bytes.ts";
import { frameText } from "../../../codec/framing.ts";
import { isJsonObject, parseJson } from "../../../codec/json.ts";
import { peekResponseIdBytes } from "../../../codec/peek.ts";
import { quote } from "../../../codec/quote.ts";
import { BODY_EXCERPT_BYTES, bodyExcerpt, displayUrl } from "../../../codec/streamable_http.ts";
import type { HttpFailure } from "../../thread/outcomes.ts";
import type { AuthFailure } from "../../thread/auth.ts";

const decoder = new TextDecoder();

/** The most redirects one request follows, each within the endpoint's origin: 5. */
export const MAX_REDIRECTS = 5;
/** The most characters of a refusal's `WWW-Authenticate` quoted in a message: 200 (whole in `http`). */
export const MAX_CHALLENGE_CHARS = 200;

/**
 * A request's headers, every name in lower case: `fetch` takes a record in
 * one pass, where a `Headers` is iterated (sorted and combined) again.
 */
export type HeaderList = Record<string, string>;

/** How a bounded body read ended. */
export type BodyRead =
  | { kind: "whole"; bytes: Uint8Array }
  | { kind: "too_large"; bytes: Uint8Array; limit: number }
  | { kind: "broken"; bytes: Uint8Array; message: string };

/** Reads a body up to `limit` bytes; past it, the read stops and the body is cancelled. */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<BodyRead> {
  const parts: Uint8Array[] = [];
  let size = 0;
  if (body === null) return { kind: "whole", bytes: new Uint8Array() };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > limit) {
        parts.push(value.subarray(0, limit - size));
        reader.cancel().catch(() => {});
        return { kind: "too_large", bytes: joinBytes(parts, limit), limit };
      }
      parts.push(value);
      size += value.length;
    }
  } catch (error) {
    return { kind: "broken", bytes: joinBytes(parts, size), message: reason(error) };
  }
  // The reader stays locked: nothing reads the body again, and a release
  // builds a TypeError, with its stack, for the reader's closed promise.
  return { kind: "whole", bytes: joinBytes(parts, size) };
}

/**
 * Reads a response's body up to `limit` bytes, as {@linkcode readBody}
 * does. A body that declares its length (`Content-Length`, within `limit`)
 * and no content coding is read in one call, which is cheaper than a stream
 * reader (BENCHMARKS.md, "Over HTTP, third pass"): the HTTP client stops
 * such a body at its declared length, and one that ends short of it is
 * broken. Any other body (no length, a coded one, whose decoded size its
 * length does not bound, or a length past `limit`) is read through the
 * reader, chunk by chunk, and cut at `limit`.
 */
export async function readResponseBody(response: Response, limit: number): Promise<BodyRead> {
  const declared = declaredLength(response.headers);
  if (declared === undefined || declared > limit) return await readBody(response.body, limit);
  let bytes: Uint8Array;
  try {
    bytes = await response.bytes();
  } catch (error) {
    return { kind: "broken", bytes: new Uint8Array(), message: reason(error) };
  }
  // The client holds a body to its declared length; checked all the same.
  if (bytes.length > limit) return { kind: "too_large", bytes: bytes.subarray(0, limit), limit };
  return { kind: "whole", bytes };
}

/**
 * The length a body declares, when it is the length of the bytes it
 * delivers: a `Content-Length` of decimal digits alone, and no
 * `Content-Encoding` other than `identity` (a coded body is decoded by
 * `fetch`, and its length says nothing of what that yields).
 */
function declaredLength(headers: Headers): number | undefined {
  const coding = headers.get("content-encoding");
  if (coding !== null && coding.trim().toLowerCase() !== "identity") return undefined;
  const length = headers.get("content-length");
  if (length === null || !/^[0-9]{1,15}$/.test(length)) return undefined;
  return Number(length);
}

/** How reading an event stream ended. */
export type StreamEnd =
  | { kind: "ended" }
  | { kind: "fault"; fault: SseFault }
  | { kind: "broken"; message: string }
  | { kind: "stopped" };

/**
 * Reads an event stream into `decoder`, handing each event to `onEvent`
 * as it completes. `onEvent` answers false to stop reading (the body is
 * then cancelled).
 */
export async function readEvents(
  body: ReadableStream<Uint8Array> | null,
  decoder: SseDecoder,
  onEvent: (event: SseEvent) => boolean,
): Promise<StreamEnd> {
  if (body === null) return { kind: "ended" };
  const reader = body.getReader();
  const stop = (): StreamEnd => {
    reader.cancel().catch(() => {});
    return { kind: "stopped" };
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        decoder.end();
        return { kind: "ended" };
      }
      const pushed = decoder.push(value);
      const events = pushed.ok ? pushed.value : pushed.error.events;
      for (const event of events) if (!onEvent(event)) return stop();
      if (!pushed.ok) {
        reader.cancel().catch(() => {});
        return { kind: "fault", fault: pushed.error };
      }
    }
  } catch (error) {
    return { kind: "broken", message: reason(error) };
  }
  // Left locked, as in readBody.
}

/**
 * What a request's POST came to: an answer, or why there is none (a refused
 * redirect's `location` says where it pointed: an origin, or a scheme that
 * is not HTTP's), or, for a server that signs in, why no credentials let it
 * in (`http`: the last refusal, when the server refused).
 */
export type Sent =
  | { kind: "answer"; response: Response }
  | {
    kind: "refused_redirect";
    status: number;
    location: string;
    /** Why it was not followed: another origin, a body it would drop, one hop too many. */
    why: "origin" | "drops_body" | "too_many";
  }
  | { kind: "unreachable"; message: string }
  | { kind: "auth_failed"; failure: AuthFailure; http?: HttpFailure }
  | { kind: "aborted" };

/**
 * Sends a request to `url`, following a redirect only to the same origin
 * (307 and 308 keep the method and body; a redirect to another origin, or
 * one that would drop the body, is refused, as is one redirect too many).
 */
export async function send(
  url: URL,
  init: {
    method: string;
    headers: HeaderList;
    body?: Uint8Array<ArrayBuffer>;
    signal: AbortSignal;
  },
): Promise<Sent> {
  let target = url;
  for (let hop = 0;; hop++) {
    let response: Response;
    try {
      response = await fetch(target, { ...init, redirect: "manual" });
    } catch (error) {
      if (init.signal.aborted) return { kind: "aborted" };
      return { kind: "unreachable", message: reason(error) };
    }
    if (response.status < 300 || response.status > 399 || response.status === 304) {
      return { kind: "answer", response };
    }
    const location = response.headers.get("location") ?? "";
    response.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, target);
    } catch {
      return {
        kind: "refused_redirect",
        status: response.status,
        location: quote(location),
        why: "origin",
      };
    }
    if (next.protocol !== "http:" && next.protocol !== "https:") {
      // Its origin would read "null": the scheme says where it pointed.
      const scheme = quote(next.protocol, 20);
      return {
        kind: "refused_redirect",
        status: response.status,
        location: `a ${scheme} URL`,
        why: "origin",
      };
    }
    const keepsBody = response.status === 307 || response.status === 308 ||
      init.method === "GET" || init.method === "DELETE";
    if (next.origin !== url.origin || !keepsBody || hop >= MAX_REDIRECTS) {
      const why = next.origin !== url.origin ? "origin" : !keepsBody ? "drops_body" : "too_many";
      // Within the origin, the path is the endpoint's own to show.
      const location = why === "origin" ? next.origin : displayUrl(next);
      return { kind: "refused_redirect", status: response.status, location, why };
    }
    target = next;
  }
}

// How Deno's fetch words its errors, around the cause a person can act on; the
// URL it repeats may carry a query, so it never reaches a message.
const FETCH_WORDING = [
  /^error sending request (?:from \S+ )?for \S+(?: \([^)]*\))?:\s*/,
  /^client error \([A-Za-z]+\):\s*/,
];

/**
 * An error's message, whatever was thrown, with the cause beneath it (Deno's
 * `fetch failed` says why only in its `cause`: a refused connection, a
 * header the HTTP client cannot parse), the URL it repeats left out.
 */
export function reason(error: unknown): string {
  const messages: string[] = [];
  let inner: unknown = error;
  for (let depth = 0; depth < 8 && inner !== undefined; depth++) {
    let text = inner instanceof Error ? inner.message : String(inner);
    for (const wording of FETCH_WORDING) text = text.replace(wording, "");
    if (text !== "" && !messages.includes(text)) messages.push(text);
    inner = inner instanceof Error ? inner.cause : undefined;
  }
  return messages.join(": ") || "unknown error";
}

/**
 * The id a JSON body answers, read from its ends where it can be (a plain
 * response with a numeric id), else from the whole body; `undefined` when the
 * body is not a JSON-RPC response at all.
 */
export function answeredId(bytes: Uint8Array): number | string | undefined {
  const peeked = peekResponseIdBytes(bytes);
  if (peeked !== undefined) return peeked;
  const parsed = parseJson(decoder.decode(bytes));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const { id } = parsed.value;
  const answers = "result" in parsed.value || "error" in parsed.value;
  return answers && (typeof id === "number" || typeof id === "string") ? id : undefined;
}

/**
 * Whether an error status's JSON body is the answer to request `id`: as it
 * is, or, when the server gave its error no id (`null`, as servers do for a
 * request they refused before reading it), that error answering `id`: the
 * HTTP exchange says which request it answers.
 */
export function answerOf(bytes: Uint8Array, id: number | string): "as_is" | string | undefined {
  const parsed = parseJson(decoder.decode(bytes));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const body = parsed.value;
  if (body.id === id && ("error" in body || "result" in body)) return "as_is";
  if ((body.id === null || body.id === undefined) && isJsonObject(body.error)) {
    return frameText({ jsonrpc: "2.0", id, error: body.error }).slice(0, -1);
  }
  return undefined;
}

/**
 * What a 401 or 403 says: its status, the first bytes of its body, and the
 * `WWW-Authenticate` challenge that tells what the server wants (whole in
 * `http`, quoted and cut at {@linkcode MAX_CHALLENGE_CHARS} in the message),
 * each with the credentials the request carried scrubbed by `clean`.
 */
export async function refusal(
  response: Response,
  clean: (text: string) => string,
): Promise<{ message: string; http: HttpFailure }> {
  const read = await readBody(response.body, BODY_EXCERPT_BYTES + 1);
  const http: HttpFailure = {
    status: response.status,
    statusText: clean(response.statusText),
    body: clean(bodyExcerpt(read.bytes)),
  };
  // Cleaned before it is cut, so that no part of a credential survives the cut.
  const raw = response.headers.get("www-authenticate");
  const challenge = raw === null ? null : clean(raw);
  if (challenge !== null) http.wwwAuthenticate = challenge;
  const asks = challenge === null ? "" : `; it asks for: ${quote(challenge, MAX_CHALLENGE_CHARS)}`;
  return {
    message: `was refused with HTTP ${response.status} ${response.statusText}${asks}; ` +
      `check the credentials in its headers, or give it oauth settings to sign in`,
    http,
  };
}

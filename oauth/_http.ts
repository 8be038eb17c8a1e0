/**
 * The one door of the room to the network: every OAuth request (metadata,
 * registration, token, a headless user agent's hops) goes through a fetch
 * made here, which gives it a deadline, reads at most
 * {@linkcode MAX_OAUTH_RESPONSE_BYTES} of its answer, and turns a request
 * that got no answer into an {@linkcode UnreachableError} naming host, port
 * and what the system said (Deno's own message is only `fetch failed`).
 *
 * @module
 */

import * as oauth from "./_oauth4webapi.ts";
import { MAX_OAUTH_RESPONSE_BYTES } from "./limits.ts";
import type { Fetch } from "./credentials.ts";

export type { Fetch };

/** A request got no answer: the server is down, unknown, or too slow. */
export class UnreachableError extends Error {
  /** The URL asked, without its query. */
  readonly url: string;
  /** Its host. */
  readonly host: string;
  /** Its port, the scheme's default when the URL has none. */
  readonly port: number;
  /** What the system said. */
  readonly system: string;

  constructor(url: URL, system: string) {
    const port = portOf(url);
    super(`Cannot reach ${url.hostname}:${port} (${url.origin}${url.pathname}): ${system}`);
    this.name = "UnreachableError";
    this.url = `${url.origin}${url.pathname}`;
    this.host = url.hostname;
    this.port = port;
    this.system = system;
  }
}

/** An answer longer than {@linkcode MAX_OAUTH_RESPONSE_BYTES}. */
export class ResponseTooLargeError extends Error {
  /** The URL asked, without its query. */
  readonly url: string;

  constructor(url: URL) {
    super(
      `The answer of ${url.origin}${url.pathname} is longer than ${MAX_OAUTH_RESPONSE_BYTES} bytes`,
    );
    this.name = "ResponseTooLargeError";
    this.url = `${url.origin}${url.pathname}`;
  }
}

/** The options every call into oauth4webapi gets. */
export type RequestOptions = {
  [oauth.customFetch]: (url: string, init: object) => Promise<Response>;
  [oauth.allowInsecureRequests]: boolean;
};

/**
 * The options of a call into oauth4webapi for a request to `url`, which
 * `namedBy` named (the server for its metadata, the issuer for its
 * endpoints): its requests go through `fetch`, and plain HTTP is allowed as
 * {@linkcode plainHttpAllowed} has it.
 */
export function requestOptions(
  url: string | URL,
  fetch: Fetch,
  options: { namedBy: string | URL },
): RequestOptions {
  return {
    [oauth.customFetch]: (target: string, init: object) => fetch(target, init as RequestInit),
    [oauth.allowInsecureRequests]: plainHttpAllowed(url, options.namedBy),
  };
}

/**
 * Whether a request to `url` may go over plain HTTP: only when it stays on
 * this machine (RFC 8252 §8.3) and whoever named it is on this machine too.
 * An endpoint a remote issuer names, or an issuer a remote server names, is
 * never reached unencrypted, loopback or not: another local program may
 * listen there.
 */
export function plainHttpAllowed(url: string | URL, namedBy: string | URL): boolean {
  return isLoopback(new URL(url)) && isLoopback(new URL(namedBy));
}

/** The port a URL reaches. */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

/** Whether a URL is on this machine, where plain HTTP is allowed (RFC 8252 §8.3). */
export function isLoopback(url: URL): boolean {
  const host = url.hostname;
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * What the system said about a failed fetch: the innermost cause's message,
 * without the URL Deno repeats (which may carry a query) and without the
 * layers of the HTTP client's wording.
 */
export function systemError(error: unknown): string {
  let inner: unknown = error;
  for (let depth = 0; depth < 8; depth++) {
    const cause = inner instanceof Error ? inner.cause : undefined;
    if (!(cause instanceof Error)) break;
    inner = cause;
  }
  const text = inner instanceof Error ? inner.message : String(inner);
  return text
    .replace(/^error sending request for url \([^)]*\):\s*/, "")
    .replace(/^client error \(Connect\):\s*/, "");
}

/** How a {@linkcode boundedFetch} bounds and cleans its answers. */
export type BoundedFetchOptions = {
  /** Deadline of each request, in ms. */
  timeoutMs: number;
  /** Aborted when the session closes. */
  closed?: AbortSignal;
  /** What an error answer's text becomes before anything reads it (its secrets scrubbed). */
  scrub?: (text: string) => string;
};

/**
 * A fetch with a deadline of `timeoutMs` per request whose answers are read
 * whole (up to the cap) before they are handed on, so that nothing of the
 * request outlives it: no timer, no open body. When `closed` aborts, every
 * request in flight is abandoned at once (its timer cleared with it), and
 * every later one fails before it is sent. The body of an error answer
 * (HTTP 400 and up) is handed on as `scrub` makes it: a server that echoes
 * what it was sent echoes secrets, and this is the only place that sees the
 * whole text before a message quotes and cuts it.
 */
export function boundedFetch(base: Fetch, options: BoundedFetchOptions): Fetch {
  const { timeoutMs, closed, scrub } = options;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (closed?.aborted) throw new UnreachableError(url, CLOSED);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const signals = [controller.signal];
    if (init?.signal) signals.push(init.signal);
    if (closed !== undefined) signals.push(closed);
    const signal = signals.length === 1 ? controller.signal : AbortSignal.any(signals);
    const why = (error: unknown, late: string): string =>
      closed?.aborted ? CLOSED : controller.signal.aborted ? late : systemError(error);
    try {
      let response: Response;
      try {
        response = await base(input, { ...init, signal });
      } catch (error) {
        throw new UnreachableError(url, why(error, `no answer within ${timeoutMs} ms`));
      }
      let bytes: Uint8Array<ArrayBuffer> | null;
      try {
        bytes = await readCapped(response, url);
      } catch (error) {
        if (error instanceof ResponseTooLargeError) throw error;
        throw new UnreachableError(url, why(error, `no whole answer within ${timeoutMs} ms`));
      }
      const bodyless = response.status === 204 || response.status === 304 || response.status < 200;
      const headers = new Headers(response.headers);
      if (bytes !== null && response.status >= 400 && scrub !== undefined) {
        bytes = new TextEncoder().encode(scrub(new TextDecoder().decode(bytes)));
        headers.delete("content-length");
      }
      return new Response(bodyless ? null : bytes, {
        status: response.status,
        statusText: response.statusText,
        headers,
      });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** What a request abandoned by a closed session says. */
const CLOSED = "given up, since the sign-in's session was closed (its client retired)";

async function readCapped(response: Response, url: URL): Promise<Uint8Array<ArrayBuffer> | null> {
  if (response.body === null) return null;
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > MAX_OAUTH_RESPONSE_BYTES) {
        await reader.cancel().catch(() => {});
        throw new ResponseTooLargeError(url);
      }
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

// Private to client/transport/http/: what a remote server's transport says when a request
// goes wrong, in one place: a request that could not be sent, a redirect it
// would not follow, a sign-in that let it in no further; and how a JSON body
// becomes the one line the machine reads.

import type { OutgoingMessage } from "../../../codec/streamable_http.ts";
import type { AuthFailure } from "../../thread/auth.ts";
import type { HttpFailure, StartFailure } from "../../thread/outcomes.ts";
import { quote } from "../../../codec/quote.ts";
import { httpFailure, needsAuthFailure, REFUSED_BY_CLIENT } from "../../thread/outcomes.ts";
import { MAX_CHALLENGE_CHARS, MAX_REDIRECTS, type Sent } from "./_read.ts";

/**
 * The JSON-RPC error code of an answer the client makes up for a request
 * whose HTTP answer was not a JSON-RPC message (a status without one, an
 * empty 202, a stream that ended without the answer): -32000, the first
 * code JSON-RPC leaves to implementations. Its `data` carries the status.
 */
export const HTTP_ANSWER_ERROR = -32000;

/** Where a server is, for messages: its name and its endpoint as it may be shown. */
export type Where = { name: string; endpoint: string };

/** `The answer of server "x" at <url> to <method>`, the subject of a broken answer. */
export function subject(where: Where, message: OutgoingMessage): string {
  return `The answer of server "${where.name}" at ${where.endpoint} to ${
    message.method ?? "a response"
  }`;
}

/** What a request that got no answer, for want of a connection or of a redirect, says. */
export function unsentMessage(
  where: Where,
  sent: Extract<Sent, { kind: "unreachable" | "refused_redirect" }>,
  message: OutgoingMessage,
): string {
  if (sent.kind === "unreachable") {
    return `Cannot reach server "${where.name}" at ${where.endpoint}: ${sent.message}`;
  }
  const what = `Server "${where.name}" at ${where.endpoint} redirected ${
    message.method ?? "a response"
  } (HTTP ${sent.status}) to ${sent.location}`;
  if (sent.why === "too_many") {
    return `${what}, after ${MAX_REDIRECTS} redirects already followed (MAX_REDIRECTS); ` +
      "point its url at the endpoint itself";
  }
  if (sent.why === "drops_body") {
    return `${what}, a redirect that would send the request on without its body; only 307 ` +
      "and 308 are followed for a POST: point its url at where it leads";
  }
  return `${what}; only redirects within its origin that keep the request are followed`;
}

/**
 * What a request the sign-in could not let in says (the failure is already
 * scrubbed), with the server's own refusal when there was one: a server that
 * answered 401 without offering a sign-in is still seen to have answered 401.
 */
export function signInMessage(
  where: Where,
  failure: AuthFailure,
  message: OutgoingMessage,
  http?: HttpFailure,
) {
  const refused = http === undefined || failure.kind === "needs_auth"
    ? ""
    : ` (it answered HTTP ${http.status} ${http.statusText}${
      http.wwwAuthenticate === undefined
        ? ""
        : `, asking for ${quote(http.wwwAuthenticate, MAX_CHALLENGE_CHARS)}`
    })`;
  return `Cannot sign in to server "${where.name}" at ${where.endpoint} for ` +
    `${message.method ?? "a response"}${refused}: ${failure.message}`;
}

/** A made-up answer's words: its message and its `data`. */
export type MadeUp = { message: string; data: Record<string, string | number> };

/** The line of a made-up answer to request `id`. */
export function madeUpLine(id: number | string, words: MadeUp): string {
  const error = { code: HTTP_ANSWER_ERROR, message: words.message, data: words.data };
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/**
 * Why a start fails when a request got no answer before the server ever
 * answered: it could not be reached, redirected away, or the sign-in could
 * not let it in (`needs_auth` when a person must sign in).
 */
export function unsentFailure(
  where: Where,
  sent: Exclude<Sent, { kind: "answer" } | { kind: "aborted" }>,
  m: OutgoingMessage,
): { message: string; failure: StartFailure } {
  if (sent.kind !== "auth_failed") {
    const message = unsentMessage(where, sent, m);
    return { message, failure: httpFailure(message, undefined) };
  }
  const message = signInMessage(where, sent.failure, m, sent.http);
  const { kind, authorizationUrl, issuer } = sent.failure;
  const failure = kind === "needs_auth" && authorizationUrl !== undefined
    ? needsAuthFailure(message, authorizationUrl, issuer)
    : httpFailure(message, sent.http);
  return { message, failure };
}

/**
 * A request refused here: one of its headers is too long to send. Marked as
 * the client's refusal, so that it fails as `unavailable`, not as the server's error.
 */
export function headerTooLong(
  where: Where,
  message: OutgoingMessage,
  header: { name: string; bytes: number },
  limit: number,
): MadeUp {
  return {
    message: `The client did not send ${message.method} to server "${where.name}": its ` +
      `${header.name} header would be ${header.bytes} bytes, more than ${limit} ` +
      `(MAX_PARAM_HEADER_BYTES); nothing was sent, and the server refused nothing`,
    data: {
      refusedBy: REFUSED_BY_CLIENT,
      refused: "header_too_long",
      header: header.name,
      bytes: header.bytes,
    },
  };
}

/** A request the sign-in could not let in, once the server had answered others. */
export function notLetIn(
  where: Where,
  sent: Extract<Sent, { kind: "auth_failed" }>,
  message: OutgoingMessage,
): MadeUp {
  const data: Record<string, string | number> = { auth: sent.failure.kind };
  if (sent.http !== undefined) data.status = sent.http.status;
  if (sent.failure.authorizationUrl !== undefined) {
    data.authorizationUrl = sent.failure.authorizationUrl;
  }
  return { message: signInMessage(where, sent.failure, message, sent.http), data };
}

/** A success whose JSON body answers another request, or is no response at all. */
export function otherAnswer(
  where: Where,
  message: OutgoingMessage,
  answered: number | string | undefined,
  status: number,
  excerpt: string,
): MadeUp {
  const other = answered === undefined
    ? "that is not a JSON-RPC response"
    : `for request ${JSON.stringify(answered)}`;
  return {
    message: `Server "${where.name}" answered ${message.method} with a JSON body ${other}`,
    data: { status, body: excerpt },
  };
}

/**
 * A status without a JSON-RPC answer. Its body is shown as the excerpt, its
 * runs of white space made one space; an HTML page (a proxy's or a web
 * server's error page) only by its title: the whole excerpt stays in `data`.
 */
export function noAnswer(
  where: Where,
  message: OutgoingMessage,
  response: { status: number; statusText: string; headers?: Headers },
  excerpt: string,
): MadeUp {
  const { status, statusText } = response;
  const what = status === 202 || excerpt === ""
    ? `HTTP ${status} ${statusText} without an answer`
    : `HTTP ${status} ${statusText}: ${bodyWords(excerpt, response.headers?.get("content-type"))}`;
  return {
    message: `Server "${where.name}" answered ${message.method} with ${what}`,
    data: { status, body: excerpt },
  };
}

// What a body excerpt says in a message: an HTML page by its text (or its
// title, when its body has none), other text as one line.
function bodyWords(excerpt: string, contentType: string | null | undefined): string {
  const html = /^\s*text\/html\b/i.test(contentType ?? "") ||
    /^(?:\\u\{[9ad]\}|\s)*<(?:!doctype html|html)\b/i.test(excerpt);
  const line = (text: string) => text.replace(/(?:\\u\{[9ad]\}|\s)+/g, " ").trim();
  if (!html) return line(excerpt);
  const title = line(/<title[^>]*>([^<]*)<\/title>/i.exec(excerpt)?.[1] ?? "");
  const text = line(
    excerpt.replace(/<(head|script|style)\b[^>]*>[^]*?(?:<\/\1\s*>|$)/gi, " ")
      .replace(/<[^>]*(?:>|$)/g, " "),
  );
  const said = text !== "" ? text : title;
  return said === "" ? "an HTML page, not an MCP answer" : `an HTML page: ${quote(said)}`;
}

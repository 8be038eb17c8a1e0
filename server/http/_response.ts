// Private to server/http/: writing the endpoint's own answers: a JSON-RPC
// error with its status, a plain-text refusal, and an event stream's headers.

import { type JsonObject, stringifyJson } from "../../codec/json.ts";
import { encodeError, INTERNAL_ERROR } from "../../codec/jsonrpc.ts";
import { SESSION_HEADER } from "../../codec/streamable_http.ts";
import type { WireId } from "../_inbound.ts";
import type { Session } from "./_session.ts";

export function streamHeaders(session: Session | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "x-accel-buffering": "no",
  };
  if (session !== undefined) headers[SESSION_HEADER.toLowerCase()] = session.id;
  return headers;
}

/**
 * The JSON text of a message to send. One that JSON cannot say (a value
 * nested past MAX_JSON_DEPTH, a NaN) is never sent as something else: an
 * answer becomes the error answering the same request, and anything else
 * is not sent (`undefined`).
 */
export function messageText(message: JsonObject): string | undefined {
  const text = stringifyJson(message);
  if (text.ok) return text.value;
  const id = message.id;
  if ("method" in message || (typeof id !== "number" && typeof id !== "string")) return undefined;
  const error = stringifyJson(encodeError(id, {
    code: INTERNAL_ERROR,
    message: `Internal error: the answer could not be written as JSON (${text.error.message})`,
  }));
  return error.ok ? error.value : undefined;
}

export function rpcError(
  status: number,
  id: WireId | null,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: JsonObject,
): Response {
  const body = encodeError(id, data === undefined ? { code, message } : { code, message, data });
  const text = stringifyJson(body);
  return new Response(text.ok ? text.value : "{}", {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function plain(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(message, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  });
}

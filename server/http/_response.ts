// Private to server/http/: writing the endpoint's own answers: a JSON-RPC
// error with its status, a plain-text refusal, and an event stream's headers.

import { type JsonObject, stringifyJson } from "../../codec/json.ts";
import { encodeError } from "../../codec/jsonrpc.ts";
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

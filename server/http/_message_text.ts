// Private to server/http/: the JSON text of a message the endpoint sends, never
// anything else in its place.

import { type JsonObject, stringifyJson } from "../../codec/json.ts";
import { encodeError, INTERNAL_ERROR } from "../../codec/jsonrpc.ts";

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

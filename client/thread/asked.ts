/**
 * What a server asks of the client's user (elicitation), its model
 * (sampling) or its settings (roots), as both threads see it: what the
 * client declares it can answer ({@linkcode ServedRequests}, decided on the
 * main thread from the handlers a harness gave, carried in the worker's
 * start), and the answer to a request the worker hands to the main thread
 * ({@linkcode ServerAnswer}: a result, or the JSON-RPC error to answer
 * with). Data and pure decisions only: the handlers stay on the main thread.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../../codec/json.ts";
import type { RpcError } from "../../codec/jsonrpc.ts";
import type { Result } from "../../codec/result.ts";
import { isRecord, isString } from "./guards.ts";
import type { Root } from "../../settings/server_spec.ts";

/** The requests of a server that the worker hands to the main thread's handlers. */
export const ASKED_METHODS = ["elicitation/create", "sampling/createMessage"] as const;

/** A request of a server answered by a handler of the main thread's. */
export type AskedMethod = typeof ASKED_METHODS[number];

export type { Root } from "../../settings/server_spec.ts";

/**
 * What a client answers of a server's requests: whether a handler is given
 * for elicitation and for sampling, and the roots it lists (`null` when it
 * lists none and declares no `roots`).
 */
export type ServedRequests = {
  elicit: boolean;
  sample: boolean;
  roots: Root[] | null;
};

/** A client that answers none of a server's requests (the default). */
export const SERVES_NONE: ServedRequests = Object.freeze({
  elicit: false,
  sample: false,
  roots: null,
});

/**
 * The capabilities a client declares for what it serves: only what a
 * handler or a setting was given for, since a server offers a tool that
 * asks only to a client that declares it can answer, and a client that
 * declares what it cannot do is worse than one that declares nothing.
 *
 * @example
 * ```ts
 * import { clientCapabilities } from "./asked.ts";
 * console.log(clientCapabilities({ elicit: true, sample: false, roots: null }));
 * // { elicitation: { form: {}, url: {} } }
 * ```
 */
export function clientCapabilities(served: ServedRequests): JsonObject {
  const capabilities: JsonObject = {};
  if (served.elicit) capabilities.elicitation = { form: {}, url: {} };
  if (served.sample) capabilities.sampling = { tools: {} };
  if (served.roots !== null) capabilities.roots = { listChanged: false };
  return capabilities;
}

/** The answer to a server's request: its result, or the JSON-RPC error to answer with. */
export type ServerAnswer = Result<JsonValue, RpcError>;

/** Whether a value that crossed the boundary is a {@linkcode ServerAnswer}. */
export function isServerAnswer(value: unknown): value is ServerAnswer {
  if (!isRecord(value)) return false;
  if (value.ok === true) return "value" in value;
  if (value.ok !== false || !isRecord(value.error)) return false;
  const { code, message } = value.error;
  return Number.isSafeInteger(code) && isString(message);
}

/** Whether a value that crossed the boundary is what {@linkcode ServedRequests} says. */
export function isServedRequests(value: unknown): value is ServedRequests {
  if (!isRecord(value)) return false;
  if (typeof value.elicit !== "boolean" || typeof value.sample !== "boolean") return false;
  const roots = value.roots;
  return roots === null ||
    (Array.isArray(roots) &&
      roots.every((root) =>
        isJsonObject(root) && isString(root.uri) &&
        (root.name === undefined || isString(root.name))
      ));
}

// Private to client/: the checks of what a caller hands a client. Misuse
// throws (`TypeError`, `RangeError`) before anything is sent; everything
// that can go wrong after that is a value.

import { type JsonObject, stringifyJson } from "../codec/json.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../settings/check.ts";
import type { CompletionReference } from "./prompts.ts";

/** A deadline in milliseconds, or `RangeError` when it breaks the timeout rule. */
export function checkTimeout(value: number, what: string): number {
  if (!isTimeoutMs(value)) {
    throw new RangeError(`Cannot use ${what} ${String(value)}: it must be ${TIMEOUT_RULE}`);
  }
  return value;
}

function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The parameters of a `tools/call`, as compact JSON; `TypeError` when the
 * name is not a string or the arguments are not a plain object JSON can say.
 */
export function callParams(name: string, args: JsonObject): string {
  if (typeof name !== "string") {
    throw new TypeError(`Cannot call a tool named ${String(name)}: the name must be a string`);
  }
  if (!isPlainObject(args)) {
    throw new TypeError(
      `Cannot call tool ${JSON.stringify(name)}: arguments must be a plain object`,
    );
  }
  const params = stringifyJson({ name, arguments: args });
  if (!params.ok) {
    throw new TypeError(`Cannot call tool ${JSON.stringify(name)}: ${params.error.message}`);
  }
  return params.value;
}

/** A record of strings, copied; a value that is not a string is the caller's mistake. */
export function stringRecord(record: Readonly<Record<string, string>>, what: string): JsonObject {
  if (typeof record !== "object" || record === null || Array.isArray(record)) {
    throw new TypeError(`${what}: its arguments are not a record of strings`);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    if (typeof value !== "string") {
      throw new TypeError(`${what}: argument ${JSON.stringify(key)} is not a string`);
    }
    out[key] = value;
  }
  return out;
}

/** A completion reference, copied; one of another shape is the caller's mistake. */
export function referenceOf(ref: CompletionReference): JsonObject {
  if (ref?.type === "ref/prompt" && typeof ref.name === "string" && ref.name !== "") {
    return { type: "ref/prompt", name: ref.name };
  }
  if (ref?.type === "ref/resource" && typeof ref.uri === "string" && ref.uri !== "") {
    return { type: "ref/resource", uri: ref.uri };
  }
  throw new TypeError(
    'Cannot complete an argument: its reference is not { type: "ref/prompt", name } or ' +
      '{ type: "ref/resource", uri }',
  );
}

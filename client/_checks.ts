// Private to client/: the checks of what a caller hands a client. Misuse
// throws (`TypeError`, `RangeError`) before anything is sent; everything
// that can go wrong after that is a value.

import { type JsonObject, stringifyJson } from "../codec/json.ts";
import { isTimeoutMs, TIMEOUT_RULE } from "../settings/check.ts";

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

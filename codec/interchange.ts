/**
 * The value translation between a program and the MCP wire: what a program
 * hands to `invoke` becomes JSON, and JSON becomes values, total both ways.
 *
 * Nothing is guessed: a value JSON has no honest encoding for (binary, a
 * `Map`, a `Date`, a class instance, a cycle, an integer outside
 * [-2^63, 2^64 - 1]) fails the whole conversion with the path where it was
 * found, rather than being wrapped, clamped or stringified.
 *
 * @module
 */

import { type JsonObject, type JsonValue, MAX_JSON_DEPTH } from "./json.ts";
import { err, ok, type Result } from "./result.ts";
import { quote } from "./quote.ts";
import { thrownText } from "./_thrown.ts";

/** The least integer the interchange accepts: -2^63. */
export const MIN_INTERCHANGE_INTEGER: bigint = -(2n ** 63n);
/** The greatest integer the interchange accepts: 2^64 - 1. */
export const MAX_INTERCHANGE_INTEGER: bigint = 2n ** 64n - 1n;

/** Why a value cannot cross to JSON; `path` names where, as in `$.a[3].b`. */
export type InterchangeFault = {
  kind:
    | "unsupported_value"
    | "integer_out_of_range"
    | "not_finite"
    | "undefined_value"
    | "cycle"
    | "too_deep"
    | "unreadable";
  path: string;
  message: string;
};

// Thrown to unwind a conversion. Told apart from what a program throws by
// its private field, a check no Proxy trap can answer and that never throws.
class Refusal {
  #fault: InterchangeFault;
  constructor(fault: InterchangeFault) {
    this.#fault = fault;
  }

  get fault(): InterchangeFault {
    return this.#fault;
  }

  static is(value: unknown): value is Refusal {
    return typeof value === "object" && value !== null && #fault in value;
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The path of property `key` of the value at `path`, as every JSON path of
 * the library reads: `.key` for an identifier, `["key"]` for anything else.
 *
 * @example Step into two properties
 * ```ts
 * import { pathStep } from "@loom/mcp/codec";
 * console.log(pathStep(pathStep("$", "a"), "b c")); // $.a["b c"]
 * ```
 */
export function pathStep(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function refuse(kind: InterchangeFault["kind"], path: string, what: string): never {
  throw new Refusal({ kind, path, message: `Cannot pass ${what} at ${path} as JSON` });
}

/**
 * Converts a program value to JSON. Accepts `null`, booleans, strings, finite
 * numbers, `bigint`s in [-2^63, 2^64 - 1], plain arrays and plain objects
 * (prototype `Object.prototype` or `null`). An object property that is
 * `undefined` is left out; `undefined` anywhere else is refused. Never throws,
 * even for a value whose getters throw.
 *
 * @example Refuse a Map, naming where it is
 * ```ts
 * import { toJson } from "@loom/mcp/codec";
 * const result = toJson({ items: [1, new Map()] });
 * if (!result.ok) console.log(result.error.path); // $.items[1]
 * ```
 */
export function toJson(value: unknown): Result<JsonValue, InterchangeFault> {
  try {
    return ok(convert(value, "$", 0, new Set()));
  } catch (error) {
    if (Refusal.is(error)) return err(error.fault);
    return err({
      kind: "unreadable",
      path: "$",
      message: `Cannot pass the value as JSON: reading it threw ${quote(thrownText(error))}`,
    });
  }
}

function convert(value: unknown, path: string, depth: number, seen: Set<object>): JsonValue {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) refuse("not_finite", path, `${value}`);
      // A double past 2^53 holding an integer is that exact integer, bounded
      // like a bigint, rather than its shortest decimal form.
      return Number.isSafeInteger(value) || !Number.isInteger(value)
        ? value
        : exactInteger(BigInt(value), path);
    case "bigint":
      return exactInteger(value, path);
    case "undefined":
      return refuse("undefined_value", path, "undefined");
    case "function":
      return refuse("unsupported_value", path, "a function");
    case "symbol":
      return refuse("unsupported_value", path, "a symbol");
  }
  if (value === null) return null;
  const object = value as object;
  if (seen.has(object)) refuse("cycle", path, "a cycle");
  if (depth >= MAX_JSON_DEPTH) {
    refuse("too_deep", path, `nesting deeper than ${MAX_JSON_DEPTH}`);
  }
  seen.add(object);
  try {
    if (read(path, () => Array.isArray(object))) {
      const array = object as unknown[];
      if (read(path, () => Object.getPrototypeOf(array)) !== Array.prototype) {
        refuse("unsupported_value", path, "an array subclass");
      }
      const out: JsonValue[] = [];
      const length = read(path, () => array.length);
      for (let index = 0; index < length; index++) {
        const at = `${path}[${index}]`;
        out.push(convert(read(at, () => array[index]), at, depth + 1, seen));
      }
      return out;
    }
    const proto = read(path, () => Object.getPrototypeOf(object));
    if (proto !== Object.prototype && proto !== null) {
      refuse("unsupported_value", path, read(path, () => nameOf(object)));
    }
    if (read(path, () => Object.getOwnPropertySymbols(object)).length > 0) {
      refuse("unsupported_value", path, "an object with symbol keys");
    }
    const out: JsonObject = Object.create(null);
    const record = object as Record<string, unknown>;
    for (const key of read(path, () => Object.keys(record))) {
      const at = pathStep(path, key);
      const item = read(at, () => record[key]);
      if (item === undefined) continue;
      out[key] = convert(item, at, depth + 1, seen);
    }
    return out;
  } finally {
    seen.delete(object);
  }
}

function exactInteger(value: bigint, path: string): number | bigint {
  if (value < MIN_INTERCHANGE_INTEGER || value > MAX_INTERCHANGE_INTEGER) {
    refuse("integer_out_of_range", path, `the integer ${value} (outside [-2^63, 2^64 - 1])`);
  }
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

// Runs one read of a program value (a getter, a Proxy trap), turning a throw
// into a refusal at the path being read.
function read<T>(path: string, get: () => T): T {
  try {
    return get();
  } catch (error) {
    if (Refusal.is(error)) throw error;
    throw new Refusal({
      kind: "unreadable",
      path,
      message: `Cannot pass the value at ${path} as JSON: reading it threw ${
        quote(thrownText(error))
      }`,
    });
  }
}

function nameOf(object: object): string {
  if (object instanceof Uint8Array || ArrayBuffer.isView(object)) return "binary data";
  if (object instanceof ArrayBuffer) return "binary data (an ArrayBuffer)";
  if (object instanceof Map) return "a Map";
  if (object instanceof Set) return "a Set";
  if (object instanceof Date) return "a Date";
  const name = (object.constructor as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name !== "" ? `an instance of ${name}` : "a class instance";
}

/**
 * Converts JSON to program values: plain objects (with `Object.prototype`,
 * every key an own property, `"__proto__"` included), arrays, and exact
 * `bigint`s for integers past 2^53. Total for every `JsonValue` nested at
 * most {@linkcode MAX_JSON_DEPTH} deep, which is every value the parsers
 * here make; a deeper one (or one holding a cycle) is caller misuse, and
 * throws `RangeError` rather than overflowing the stack.
 *
 * @example Bring a result back
 * ```ts
 * import { fromJson } from "@loom/mcp/codec";
 * const value = fromJson({ count: 3 }) as { count: number };
 * console.log(value.count); // 3
 * ```
 */
export function fromJson(value: JsonValue): unknown {
  return plain(value, 0);
}

function plain(value: JsonValue, depth: number): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (depth >= MAX_JSON_DEPTH) {
    throw new RangeError(
      `Cannot convert JSON to values: nesting is deeper than ${MAX_JSON_DEPTH} ` +
        "(MAX_JSON_DEPTH), or the value holds a cycle; pass a value parseJson made",
    );
  }
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      out[index] = plain(value[index] as JsonValue, depth + 1);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: plain(value[key] as JsonValue, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * Total JSON: `parseJson` never throws and never rounds an integer,
 * `stringifyJson` never emits what JSON cannot say.
 *
 * The built-in parser does the scanning (it is iterative and fast); a bounded
 * walk afterwards checks nesting, strips prototypes and finds integers that a
 * double cannot hold. Only texts holding such integers are parsed a second
 * time, with a reviver that reads each number's source text.
 *
 * @module
 */

import { err, ok, type Result } from "./result.ts";
import { syntaxErrorOffset } from "./_syntax.ts";

/** Any JSON value. Integers past ±(2^53 - 1) are `bigint`, so none is ever rounded. */
export type JsonValue = null | boolean | number | bigint | string | JsonArray | JsonObject;

/** A JSON array. */
export type JsonArray = JsonValue[];

/** A JSON object. Objects produced by {@linkcode parseJson} have no prototype. */
export type JsonObject = { [key: string]: JsonValue };

/** The deepest nesting of arrays and objects any parser of this library accepts. */
export const MAX_JSON_DEPTH = 256;

/** Why a text is not a JSON value this library accepts, or a value not a JSON text. */
export type JsonFault =
  | { kind: "syntax"; offset: number; message: string }
  | { kind: "too_deep"; message: string }
  | { kind: "number_out_of_range"; message: string }
  | { kind: "not_representable"; path: string; message: string };

const POSITION = /position (\d+)/;
const INTEGER_SOURCE = /^-?\d+$/;

type Scan = { fault: JsonFault | undefined; inexact: boolean };

/** Options of {@linkcode parseJson}. */
export type ParseOptions = {
  /**
   * Leave objects on `Object.prototype`, as `JSON.parse` and a structured
   * clone make them, instead of removing their prototype: for values handed
   * to callers as plain data. A `"__proto__"` key is an own property either
   * way. `false` by default.
   */
  keepPrototypes?: boolean;
};

/**
 * Parses one JSON text. Never throws: a syntax error, nesting deeper than
 * {@linkcode MAX_JSON_DEPTH} or a number past the range of a double is a
 * {@linkcode JsonFault}. Integers outside the safe range come back as exact
 * `bigint`s; objects come back without a prototype (unless
 * `keepPrototypes`); of duplicate keys the last one wins.
 *
 * @example Parse an id past 2^53 exactly
 * ```ts
 * import { parseJson } from "@loom/mcp/codec";
 * const result = parseJson('{"id": 12345678901234567890}');
 * if (result.ok) console.log(result.value); // { id: 12345678901234567890n }
 * ```
 */
export function parseJson(text: string, options: ParseOptions = {}): Result<JsonValue, JsonFault> {
  const strip = options.keepPrototypes !== true;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return err(syntaxFault(text, error));
  }
  const scan: Scan = { fault: undefined, inexact: false };
  inspect(value, 0, scan, strip);
  if (scan.fault !== undefined) return err(scan.fault);
  if (!scan.inexact) return ok(value as JsonValue);
  // Depth is known to be bounded now, so the recursive reviver is safe.
  try {
    value = JSON.parse(text, exactIntegers);
  } catch (error) {
    return err(syntaxFault(text, error));
  }
  inspect(value, 0, { fault: undefined, inexact: false }, strip);
  return ok(value as JsonValue);
}

function syntaxFault(text: string, error: unknown): JsonFault {
  const message = error instanceof Error ? error.message : String(error);
  const match = POSITION.exec(message);
  const offset = match?.[1] !== undefined ? Number(match[1]) : syntaxErrorOffset(text);
  return { kind: "syntax", offset, message: `Cannot parse JSON at offset ${offset}: ${message}` };
}

function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (
    typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value) &&
    context?.source !== undefined && INTEGER_SOURCE.test(context.source)
  ) {
    return BigInt(context.source);
  }
  return value;
}

// Checks depth and numbers of a freshly parsed value and, when `strip` is set,
// removes every object's prototype in place. Stops at the first fault.
function inspect(value: unknown, depth: number, scan: Scan, strip: boolean): void {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      scan.fault = {
        kind: "number_out_of_range",
        message: "Cannot parse JSON: a number is too large for a double",
      };
    } else if (!Number.isSafeInteger(value) && Number.isInteger(value)) {
      scan.inexact = true;
    }
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (depth >= MAX_JSON_DEPTH) {
    scan.fault = {
      kind: "too_deep",
      message: `Cannot parse JSON: nesting is deeper than ${MAX_JSON_DEPTH}`,
    };
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      inspect(item, depth + 1, scan, strip);
      if (scan.fault !== undefined) return;
    }
    return;
  }
  if (strip) Object.setPrototypeOf(value, null);
  const record = value as Record<string, unknown>;
  for (const key in record) {
    inspect(record[key], depth + 1, scan, strip);
    if (scan.fault !== undefined) return;
  }
}

/**
 * Renders a JSON value as one compact line: exact for `bigint`, with every
 * control character inside strings escaped, so the result never holds a
 * newline. Refuses NaN, Infinity, values that are not JSON, and nesting
 * deeper than {@linkcode MAX_JSON_DEPTH} (which also catches cycles). An
 * object property whose value is `undefined` is left out.
 *
 * @example Render an exact bigint
 * ```ts
 * import { stringifyJson } from "@loom/mcp/codec";
 * const result = stringifyJson({ n: 2n ** 64n });
 * if (result.ok) console.log(result.value); // {"n":18446744073709551616}
 * ```
 */
export function stringifyJson(value: JsonValue): Result<string, JsonFault> {
  const check = sayable(value, 0);
  if (check === UNSAYABLE) {
    const fault = validate(value, 0, "$").fault;
    if (fault !== undefined) return err(fault);
  }
  if (check === PLAIN) return ok(JSON.stringify(value));
  const out: string[] = [];
  write(value, out);
  return ok(out.join(""));
}

/**
 * Renders a value this library built (or one `toJson` accepted) as compact
 * JSON text on one line, like {@linkcode stringifyJson}; a value JSON cannot
 * say is caller misuse and throws `RangeError`. The one helper for parameters
 * rendered ahead of their line.
 *
 * @example Render a cursor's parameters
 * ```ts
 * import { compactJson } from "@loom/mcp/codec";
 * console.log(compactJson({ cursor: "abc" })); // {"cursor":"abc"}
 * ```
 */
export function compactJson(value: JsonValue): string {
  const text = stringifyJson(value);
  if (!text.ok) throw new RangeError(text.error.message);
  return text.value;
}

const PLAIN = 0;
const EXACT = 1;
const UNSAYABLE = 2;

// Whether JSON can say a value, without allocating: PLAIN (JSON.stringify
// renders it), EXACT (it holds an integer a double cannot, for `write`) or
// UNSAYABLE, whose fault `validate` then finds with its path. Every call's
// parameters pass here, so the common case builds no path strings.
function sayable(value: unknown, depth: number): number {
  switch (typeof value) {
    case "string":
    case "boolean":
      return PLAIN;
    case "bigint":
      return EXACT;
    case "number":
      if (!Number.isFinite(value)) return UNSAYABLE;
      return Number.isInteger(value) && !Number.isSafeInteger(value) ? EXACT : PLAIN;
    case "object": {
      if (value === null) return PLAIN;
      if (depth >= MAX_JSON_DEPTH) return UNSAYABLE;
      let found = PLAIN;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const inner = sayable(value[index], depth + 1);
          if (inner === UNSAYABLE) return UNSAYABLE;
          found |= inner;
        }
        return found;
      }
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue;
        const item = record[key];
        if (item === undefined) continue;
        const inner = sayable(item, depth + 1);
        if (inner === UNSAYABLE) return UNSAYABLE;
        found |= inner;
      }
      return found;
    }
    default:
      return UNSAYABLE;
  }
}

type Validation = { fault: JsonFault | undefined; bigint: boolean };

function validate(value: unknown, depth: number, path: string): Validation {
  switch (typeof value) {
    case "string":
    case "boolean":
      return { fault: undefined, bigint: false };
    case "bigint":
      return { fault: undefined, bigint: true };
    case "number":
      // An integer past 2^53 takes the exact path: JSON.stringify would print
      // its shortest form, which parseJson reads back as a different integer.
      return Number.isFinite(value)
        ? { fault: undefined, bigint: Number.isInteger(value) && !Number.isSafeInteger(value) }
        : {
          fault: {
            kind: "not_representable",
            path,
            message: `Cannot render JSON: ${value} at ${path} is not a JSON number`,
          },
          bigint: false,
        };
    case "object": {
      if (value === null) return { fault: undefined, bigint: false };
      if (depth >= MAX_JSON_DEPTH) {
        return {
          fault: {
            kind: "too_deep",
            message: `Cannot render JSON: nesting at ${path} is deeper than ${MAX_JSON_DEPTH}` +
              " (or the value holds a cycle)",
          },
          bigint: false,
        };
      }
      let bigint = false;
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          const inner = validate(value[index], depth + 1, `${path}[${index}]`);
          if (inner.fault !== undefined) return inner;
          bigint ||= inner.bigint;
        }
        return { fault: undefined, bigint };
      }
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = record[key];
        if (item === undefined) continue;
        const inner = validate(item, depth + 1, `${path}.${key}`);
        if (inner.fault !== undefined) return inner;
        bigint ||= inner.bigint;
      }
      return { fault: undefined, bigint };
    }
    default:
      return {
        fault: {
          kind: "not_representable",
          path,
          message: `Cannot render JSON: a ${typeof value} at ${path} is not a JSON value`,
        },
        bigint: false,
      };
  }
}

// Only reached for values already validated, so recursion depth is bounded.
function write(value: JsonValue, out: string[]): void {
  if (typeof value === "bigint") {
    out.push(value.toString());
  } else if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    out.push(BigInt(value).toString());
  } else if (typeof value !== "object" || value === null) {
    out.push(JSON.stringify(value));
  } else if (Array.isArray(value)) {
    out.push("[");
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out.push(",");
      write(value[index] as JsonValue, out);
    }
    out.push("]");
  } else {
    out.push("{");
    let first = true;
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (item === undefined) continue;
      if (!first) out.push(",");
      first = false;
      out.push(JSON.stringify(key), ":");
      write(item, out);
    }
    out.push("}");
  }
}

/**
 * Tells whether a JSON value is an object (not an array, not null).
 *
 * @example Narrow a value
 * ```ts
 * import { isJsonObject } from "@loom/mcp/codec";
 * console.log(isJsonObject({ a: 1 }), isJsonObject([1])); // true false
 * ```
 */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

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
import { quote } from "./quote.ts";
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

const INTEGER_SOURCE = /^-?\d+$/;
const NUMBER_SOURCE = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
// The built-in parser's own words for a fault, which quote nothing of the
// input: what precedes its position, anchored at both ends. Its other
// faults quote the input ("Unexpected token 'x', "..." is not valid JSON")
// and are worded here instead.
const OWN_WORDS =
  /^([A-Z][A-Za-z ',:{}[\]]{0,80}) in JSON at position \d+(?: \(line \d+ column \d+\))?$/;
const END_OF_INPUT = "Unexpected end of JSON input";

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
 * {@linkcode JsonFault}. A syntax fault's offset is found by a scan of the
 * text, and its message quotes at most the character where the text breaks.
 * Objects come back without a prototype (unless `keepPrototypes`); of
 * duplicate keys the last one wins.
 *
 * A number whose source denotes an integer outside the safe range comes
 * back as that exact `bigint`, however it is written: `9007199254740993`,
 * `9007199254740993.0`, `9007199254740993e0` and `90071992547409930e-1`
 * all give `9007199254740993n`. Every other number is the double nearest
 * its source, as `JSON.parse` gives it: one that is not an integer
 * (`9007199254740993.5`) stays a `number`, however large.
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
  // The offset is never read from the parser's message: that quotes the input.
  const offset = syntaxErrorOffset(text);
  const words = error instanceof Error ? OWN_WORDS.exec(error.message)?.[1] : undefined;
  const reason = words ??
    (offset >= text.length
      ? END_OF_INPUT
      : `Unexpected token ${quote(String.fromCodePoint(text.codePointAt(offset)!))}`);
  return { kind: "syntax", offset, message: `Cannot parse JSON at offset ${offset}: ${reason}` };
}

function exactIntegers(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (
    typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value) &&
    context?.source !== undefined
  ) {
    return exactInteger(context.source) ?? value;
  }
  return value;
}

/**
 * The integer a number's source denotes exactly, or `undefined` when it
 * denotes a fraction. Only reached for a source whose double is a finite
 * integer past 2^53, so the integer has at most 309 digits, and the cost is
 * linear in the source.
 */
function exactInteger(source: string): bigint | undefined {
  if (INTEGER_SOURCE.test(source)) return BigInt(source);
  const parts = NUMBER_SOURCE.exec(source);
  if (parts === null) return undefined;
  const [, sign = "", whole = "", fraction = "", exponent = "0"] = parts;
  let digits = whole + fraction;
  // The value is digits × 10^scale; trailing zeros move into the scale.
  let end = digits.length;
  while (end > 1 && digits.charCodeAt(end - 1) === 0x30) end--;
  const scale = Number(exponent) - fraction.length + (digits.length - end);
  digits = digits.slice(0, end);
  if (scale < 0) return undefined;
  return BigInt(`${sign}${digits}`) * 10n ** BigInt(scale);
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

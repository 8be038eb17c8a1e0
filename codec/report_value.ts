/**
 * A value as a report shows it: what a program returned or handed to a
 * tool, made plain data a person (or a model) can read as JSON. Beside the
 * interchange (`interchange.ts`), which refuses what JSON cannot say with its
 * path, this walker keeps going and shows it: every value that JSON cannot
 * carry becomes a marker naming it, `{ "$unrepresentable": "instance of Map" }`,
 * never an empty object, and bigints stay exact.
 *
 * The sandbox writes the same markers for what a program returns
 * (`runner/sandbox/prelude.ts`, which imports nothing outside the sandbox and
 * keeps its own copy of the key for that reason).
 *
 * @module
 */

import { thrownText } from "./_thrown.ts";

/** The key of a marker that stands for a value JSON cannot carry. */
export const UNREPRESENTABLE_KEY = "$unrepresentable";

/**
 * The deepest nesting a report shows: 200 levels of arrays and objects.
 * What is deeper becomes a marker, so that a report, framed in a message of
 * its own (a JSON-RPC answer holding it), stays within `MAX_JSON_DEPTH`.
 */
export const MAX_REPORT_DEPTH = 200;

type Fields = Record<string, unknown>;

function marker(what: string): Fields {
  return { [UNREPRESENTABLE_KEY]: what };
}

function define(target: Fields, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Makes `value` plain data as a report shows it: JSON scalars, exact
 * bigints, arrays and plain objects (an `undefined` property absent, an
 * `undefined` item a marker), and a marker for anything else (a function, a
 * symbol, NaN, a class instance, a cycle, symbol keys, a throwing getter,
 * nesting past {@linkcode MAX_REPORT_DEPTH}). Never throws.
 *
 * @example Show a value with a Map inside
 * ```ts
 * import { reportValue } from "@loom/mcp/codec";
 * console.log(reportValue({ n: 1, m: new Map() }));
 * // { n: 1, m: { "$unrepresentable": "instance of Map" } }
 * ```
 */
export function reportValue(value: unknown): unknown {
  return shown(value, new Set());
}

// JSON.rawJSON (V8, ES2025) keeps a bigint's digits exact in JSON.stringify;
// the TypeScript library Deno checks with does not declare it yet.
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/**
 * The JSON text of `value` as a report shows it ({@linkcode reportValue}),
 * bigints exact; `indent` spaces per level (none by default, one line).
 *
 * @example Print a report value with an exact bigint
 * ```ts
 * import { reportJson } from "@loom/mcp/codec";
 * console.log(reportJson({ big: 2n ** 64n })); // {"big":18446744073709551616}
 * ```
 */
export function reportJson(value: unknown, indent = 0): string {
  const text = JSON.stringify(
    reportValue(value),
    (_key, item) => typeof item === "bigint" ? rawJson(item.toString()) : item,
    indent,
  );
  // Only a value that is absent as a whole has no text.
  return text ?? "null";
}

// `ancestors` holds the objects enclosing `value`, each once (a second
// entry would be a cycle, which stops here), so its size is the depth and
// each level's cycle check costs one lookup, not one per level above it.
// Every read of the value (a getter, a Proxy trap, even `Array.isArray` on a
// revoked Proxy) may throw: what throws is shown as `unreadable`.
function shown(value: unknown, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "bigint":
    case "undefined":
      return value;
    case "number":
      return Number.isFinite(value) ? value : marker(`number ${value}`);
    case "function":
      return guarded(() => marker(`function ${String(value.name) || "(anonymous)"}`));
    case "symbol":
      return guarded(() => marker(`symbol ${String(value.description ?? "")}`));
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return marker("cycle: a reference to an enclosing value");
  if (ancestors.size >= MAX_REPORT_DEPTH) {
    return marker(`nested deeper than ${MAX_REPORT_DEPTH} levels (MAX_REPORT_DEPTH)`);
  }
  ancestors.add(object);
  try {
    return guarded(() => shownObject(object, ancestors));
  } finally {
    ancestors.delete(object);
  }
}

function shownObject(object: object, ancestors: Set<object>): unknown {
  const proto = Object.getPrototypeOf(object);
  if (Array.isArray(object) && proto === Array.prototype) {
    const items: unknown[] = [];
    const length = object.length;
    for (let index = 0; index < length; index++) {
      const inner = guarded(() => shown(object[index], ancestors));
      items.push(inner === undefined ? marker("undefined") : inner);
    }
    return items;
  }
  if (proto !== Object.prototype && proto !== null) {
    const name = guarded(() => String(object.constructor?.name ?? ""));
    return marker(
      `instance of ${typeof name === "string" && name !== "" ? name : "an anonymous class"}`,
    );
  }
  if (Object.getOwnPropertySymbols(object).length > 0) return marker("object with symbol keys");
  const out: Fields = {};
  for (const key of Object.keys(object)) {
    const inner = guarded(() => shown((object as Fields)[key], ancestors));
    if (inner !== undefined) define(out, key, inner);
  }
  return out;
}

/** What `read` returns, or the marker of what it threw. */
function guarded(read: () => unknown): unknown {
  try {
    return read();
  } catch (error) {
    return marker(`unreadable: ${thrownText(error)}`);
  }
}

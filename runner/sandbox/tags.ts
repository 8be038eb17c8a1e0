/**
 * The tagged value form, shared by the sandbox and the host: the one
 * vocabulary both sides speak when a value crosses the channel.
 *
 * Values cross as a plain JSON tree. What JSON cannot say (bigint, undefined,
 * NaN, Map, Date, binary, functions, cycles, ...) travels as a tagged node: an
 * object whose key {@linkcode TAG} names one of {@linkcode TAGS}. A plain
 * object that itself has that key travels as an `object` tag, so nothing a
 * program builds can pose as a tag.
 *
 * The sandbox's prelude imports this file from the build root (the runner
 * writes its text there, beside `prelude.ts`); the host's decoder,
 * `runner/host/_tagged.ts`, imports it from here. Like everything under
 * `runner/sandbox/`, it imports nothing.
 *
 * @module
 */

/** The key of a tagged node; no program value can hold it unwrapped. */
export const TAG = "\u0000";

/** Every tag name either side writes or reads, each naming itself. */
export const TAGS = {
  /** A bigint: `v` holds its decimal digits. */
  bigint: "bigint",
  /** `undefined`. */
  undefined: "undefined",
  /** A number JSON cannot say: `v` is `NaN`, `Infinity` or `-Infinity`. */
  number: "number",
  /** A function: `name` holds its name. */
  function: "function",
  /** A symbol: `v` holds its description. */
  symbol: "symbol",
  /** An object with symbol keys. */
  symbol_keys: "symbol_keys",
  /** A value nested past the sandbox's depth limit. */
  too_deep: "too_deep",
  /** A value whose reading threw: `message` holds what it threw. */
  unreadable: "unreadable",
  /** A reference to an ancestor: `up` counts the levels. */
  cycle: "cycle",
  /** A Date: `v` holds its time, or `null` when invalid. */
  date: "date",
  /** Binary data: `name` holds its class, `base64` its bytes. */
  binary: "binary",
  /** A plain object holding the tag key: `entries` holds its pairs. */
  object: "object",
  /** A Map: `entries` holds its pairs. */
  map: "map",
  /** A Set: `values` holds its members. */
  set: "set",
  /** A class instance: `name` holds its class, `array` its items when it is an array. */
  instance: "instance",
} as const;

/**
 * The key of the marker a program's result or log carries in place of a
 * value that cannot cross as JSON: `{ "$unrepresentable": "instance of Foo" }`.
 * Unlike a tag, a marker is meant to be read, by the model and by people.
 */
export const UNREPRESENTABLE = "$unrepresentable";

/** One tag name. */
export type TagName = typeof TAGS[keyof typeof TAGS];

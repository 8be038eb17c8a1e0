// Private to tests/codec/: expected-value builders and fast-check arbitraries.

import fc from "fast-check";
import type { JsonObject, JsonValue } from "../../codec/mod.ts";
import { joinBytes } from "../../codec/_bytes.ts";

/** Generated inputs per property: the issue asks for at least 10,000. */
export const RUNS = 10_000;

/**
 * Copies a value the way parseJson returns it: objects without a prototype
 * (every key an own property, `__proto__` included), integers past 2^53 as
 * exact bigints (and only those), and -0 as 0.
 */
export function bare(value: unknown): JsonValue {
  if (typeof value === "number") {
    if (Object.is(value, -0)) return 0;
    return Number.isInteger(value) && !Number.isSafeInteger(value) ? BigInt(value) : value;
  }
  if (typeof value === "bigint") {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (typeof value !== "object" || value === null) return value as JsonValue;
  if (Array.isArray(value)) return value.map(bare);
  const out: JsonObject = Object.create(null);
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: bare((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Builds a prototype-free object from entries, `__proto__` taken as a plain key. */
export function record(entries: [string, JsonValue][]): JsonObject {
  const out: JsonObject = Object.create(null);
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Nests `depth` arrays around `inner`, as text. */
export function nestedArrays(depth: number, inner = "0"): string {
  return "[".repeat(depth) + inner + "]".repeat(depth);
}

/** Strings over the whole code point range, lone surrogates included. */
export const anyString: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(
    { weight: 8, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
    fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff", "\n", "\u2028", "\ufeff"),
  ),
  maxLength: 24,
});

/** Object keys, `__proto__` and `constructor` among them. */
export const anyKey: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: anyString },
  fc.constantFrom("__proto__", "constructor", "toString", "jsonrpc", "id"),
);

/** Small JSON values with unicode strings and exact integers far past 2^53. */
export const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
    anyString,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(anyKey, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Ids as this library mints them and as peers send them. */
export const id: fc.Arbitrary<number | string> = fc.oneof(
  fc.constant(0),
  fc.maxSafeInteger(),
  anyString,
);

/** Structured params: an object or an array. */
export const params: fc.Arbitrary<JsonObject | JsonValue[]> = fc.oneof(
  fc.dictionary(anyKey, jsonValue, { maxKeys: 4 }),
  fc.array(jsonValue, { maxLength: 4 }),
);

const encoder = new TextEncoder();

/** The UTF-8 bytes of a text. */
export function bytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Byte arrays joined into one. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  return joinBytes(parts, parts.reduce((sum, part) => sum + part.length, 0));
}

/** `data` cut at each offset given (clamped, deduplicated), as views, in order. */
export function splitAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((cut) => Math.min(cut, data.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(data.subarray(start, point));
    start = point;
  }
  chunks.push(data.subarray(start));
  return chunks;
}

/**
 * Byte streams with chunks past the size a splitter searches as text (runs
 * of ASCII, multi-byte characters, bytes that are not UTF-8, carriage
 * returns and newlines), with up to three offsets to cut them at.
 */
export const longChunks: fc.Arbitrary<[Uint8Array, number[]]> = fc.array(
  fc.oneof(
    fc.tuple(fc.nat(3000), fc.constantFrom(0x61, 0x0a, 0x0d, 0xe9, 0x80))
      .map(([size, byte]) => new Uint8Array(size).fill(byte)),
    fc.uint8Array({ maxLength: 64 }),
    anyString.map(bytes),
    fc.constantFrom(bytes("é\n"), bytes("😀\r\n"), new Uint8Array([0xe2, 0x82, 0x0a])),
  ),
  { minLength: 1, maxLength: 12 },
).chain((pieces) => {
  const data = concat(...pieces);
  return fc.tuple(fc.constant(data), fc.array(fc.nat(data.length), { maxLength: 3 }));
});

/** The lines of `data` by a plain split on 0x0a: a trailing `\r` dropped, empty lines skipped. */
export function plainLines(data: Uint8Array): Uint8Array[] {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let index = 0; index <= data.length; index++) {
    if (index < data.length && data[index] !== 0x0a) continue;
    let line = data.subarray(start, index);
    start = index + 1;
    if (line.at(-1) === 0x0d) line = line.subarray(0, -1);
    if (line.length > 0) lines.push(line);
  }
  return lines;
}

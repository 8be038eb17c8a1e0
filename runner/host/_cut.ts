/**
 * A value cut to a budget of JSON bytes, structurally, so that what is shown
 * stays valid JSON: a long string keeps its head and ends with
 * `… [N more bytes]`, a long array keeps its first items and ends with a
 * marker item `{ "$cut": "N more items" }`, an object with too many keys keeps
 * its first ones and a `"$cut": "N more keys"` key, and a value nested past
 * the depth kept becomes `{ "$cut": "an object of N keys" }` (or `an array of
 * N items`). Private to the runner.
 *
 * How: the value is rendered under limits (string bytes, items, keys, depth)
 * that shrink until its JSON fits, halving the string, item and key limits
 * in turn, then the depth; each rendering stops as soon as it passes the
 * budget, so a 16 MiB value costs a few dozen passes over what is kept, never
 * over the whole.
 *
 * @module
 */

import { CUT_KEY } from "./limits.ts";

const encoder = new TextEncoder();

/** How far a cut may go: it never cuts a string below this many bytes, nor keeps fewer keys. */
export type CutFloors = { stringBytes: number; keys: number; depth: number };

const DEFAULT_FLOORS: CutFloors = { stringBytes: 64, keys: 1, depth: 1 };

/** The deepest a value that does not fit keeps, once its depth is cut. */
const MAX_SHOWN_DEPTH = 64;

type Limits = { stringBytes: number; items: number; keys: number; depth: number };

/** What one rendering met: the largest string, array and object, and the depth. */
type Seen = { stringBytes: number; items: number; keys: number; depth: number };

class Over {}
const OVER = new Over();

/** Counts the bytes of the JSON being rendered; past the budget it stops the rendering. */
class Meter {
  bytes = 0;
  constructor(readonly budget: number) {}
  add(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.budget) throw OVER;
  }
  /** Stops at once when at least `bytes` more cannot fit, before they are counted exactly. */
  need(bytes: number): void {
    if (this.bytes + bytes > this.budget) throw OVER;
  }
}

/** The UTF-8 bytes of a string. */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0x80) bytes += code >= 0x800 && (code < 0xd800 || code > 0xdfff) ? 2 : 1;
  }
  return bytes;
}

// JSON.rawJSON (V8, ES2025) writes a bigint's digits, as a report's JSON does.
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

function exactBigints(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? rawJson(value.toString()) : value;
}

/** The bytes of a value's compact JSON (bigints as their digits); a lone `undefined` is `null`. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value, exactBigints) ?? "null");
}

/** A marker standing for what was cut. */
export function cutMarker(what: string): Record<string, unknown> {
  return { [CUT_KEY]: what };
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function summary(value: object): Record<string, unknown> {
  return Array.isArray(value)
    ? cutMarker(`an array of ${plural(value.length, "item", "items")}`)
    : cutMarker(`an object of ${plural(Object.keys(value).length, "key", "keys")}`);
}

// The byte counts of the long strings met, and the keys of the objects met,
// kept across the passes of one cut.
let longStrings = new Map<string, number>();
let objectKeys = new WeakMap<object, { keys: string[]; bytes: number[] }>();

/** An object's keys, and the bytes of each as JSON. */
function keysOf(record: Record<string, unknown>): { keys: string[]; bytes: number[] } {
  let known = objectKeys.get(record);
  if (known === undefined) {
    const keys = Object.keys(record);
    known = { keys, bytes: keys.map(stringBytes) };
    objectKeys.set(record, known);
  }
  return known;
}

function bytesOf(text: string): number {
  if (text.length < 4096) return utf8Bytes(text);
  let bytes = longStrings.get(text);
  // Encoding is native, and ten times faster than counting here on a long string.
  if (bytes === undefined) longStrings.set(text, bytes = encoder.encode(text).length);
  return bytes;
}

/** The head of `text` within `bytes` UTF-8 bytes and the marker saying what was cut. */
function cutString(text: string, bytes: number, seen: Seen): string {
  // Most strings are short: no need to count their bytes exactly.
  if (text.length * 3 <= bytes) {
    seen.stringBytes = Math.max(seen.stringBytes, text.length * 3);
    return text;
  }
  const whole = bytesOf(text);
  seen.stringBytes = Math.max(seen.stringBytes, whole);
  if (whole <= bytes) return text;
  // encodeInto stops at a character's end: a surrogate pair is never split.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(bytes));
  return `${text.slice(0, read)}… [${whole - written} more bytes]`;
}

// Printable ASCII but `"` and `\`: a string of these is its own JSON, quoted.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function stringBytes(text: string): number {
  return PLAIN.test(text) ? text.length + 2 : utf8Bytes(JSON.stringify(text));
}

/**
 * Renders `value` under `limits`, counting its JSON's bytes; builds the copy
 * only when `build` (a pass that may not fit only measures).
 */
function render(
  value: unknown,
  limits: Limits,
  depth: number,
  meter: Meter,
  seen: Seen,
  build = true,
): unknown {
  switch (typeof value) {
    case "string": {
      const shown = cutString(value, limits.stringBytes, seen);
      // Its JSON takes its quotes and at least a byte a character.
      meter.need(shown.length + 2);
      meter.add(stringBytes(shown));
      return shown;
    }
    case "number":
    case "boolean":
      meter.add(String(value).length);
      return value;
    case "bigint":
      meter.add(value.toString().length);
      return value;
    case "object":
      break;
    default:
      meter.add(4);
      return null;
  }
  if (value === null) {
    meter.add(4);
    return null;
  }
  seen.depth = Math.max(seen.depth, depth + 1);
  if (depth >= limits.depth) {
    const marker = summary(value);
    meter.add(jsonBytes(marker));
    return marker;
  }
  if (Array.isArray(value)) {
    seen.items = Math.max(seen.items, value.length);
    const kept = Math.min(value.length, limits.items);
    const out: unknown[] = [];
    meter.add(2);
    for (let index = 0; index < kept; index++) {
      if (index > 0) meter.add(1);
      const item = render(value[index], limits, depth + 1, meter, seen, build);
      if (build) out.push(item);
    }
    if (kept < value.length) {
      const marker = cutMarker(`${plural(value.length - kept, "more item", "more items")}`);
      meter.add((kept > 0 ? 1 : 0) + jsonBytes(marker));
      out.push(marker);
    }
    return out;
  }
  const record = value as Record<string, unknown>;
  const { keys, bytes } = keysOf(record);
  seen.keys = Math.max(seen.keys, keys.length);
  const kept = Math.min(keys.length, limits.keys);
  const entries: [string, unknown][] = [];
  meter.add(2);
  for (let index = 0; index < kept; index++) {
    const key = keys[index] as string;
    meter.add((index > 0 ? 1 : 0) + (bytes[index] as number) + 1);
    const item = render(record[key], limits, depth + 1, meter, seen, build);
    if (build) entries.push([key, item]);
  }
  if (kept < keys.length) {
    const rest = `${plural(keys.length - kept, "more key", "more keys")}`;
    meter.add((kept > 0 ? 1 : 0) + jsonBytes({ [CUT_KEY]: rest }) - 2);
    entries.push([CUT_KEY, rest]);
  }
  // Own data properties, `__proto__` included.
  return build ? Object.fromEntries(entries) : undefined;
}

/** Whether `value`'s JSON under `limits` fits the budget; measured, nothing built. */
function fits(value: unknown, limits: Limits, budget: number, seen: Seen): boolean {
  try {
    render(value, limits, 0, new Meter(budget), seen, false);
    return true;
  } catch (error) {
    if (error !== OVER) throw error;
    return false;
  }
}

/** The copy of `value` under `limits`, whose size a pass has measured. */
function built(value: unknown, limits: Limits): unknown {
  const seen = { stringBytes: 0, items: 0, keys: 0, depth: 0 };
  return render(value, limits, 0, new Meter(Number.POSITIVE_INFINITY), seen);
}

/** The bytes of `value`'s compact JSON when at most `cap`, else `cap + 1`; one pass, stopped at the cap. */
export function measureJson(value: unknown, cap: number): number {
  const limits = {
    stringBytes: Number.POSITIVE_INFINITY,
    items: Number.POSITIVE_INFINITY,
    keys: Number.POSITIVE_INFINITY,
    depth: Number.POSITIVE_INFINITY,
  };
  const meter = new Meter(cap);
  try {
    render(value, limits, 0, meter, { stringBytes: 0, items: 0, keys: 0, depth: 0 }, false);
    return meter.bytes;
  } catch (error) {
    if (error !== OVER) throw error;
    return cap + 1;
  } finally {
    longStrings = new Map();
    objectKeys = new WeakMap();
  }
}

type Dimension = "stringBytes" | "items" | "keys";

/** How many more passes a cut spends, past the first that fits, to keep as much as fits. */
const REFINE_PASSES = 6;

/**
 * `value` as JSON data whose compact JSON takes at most `budget` bytes, cut
 * structurally (see the module doc); `cut` says whether anything was. Past
 * what the floors allow, the value is one marker naming what it was.
 */
export function cutToBudget(
  value: unknown,
  budget: number,
  floors: Partial<CutFloors> = {},
): { value: unknown; cut: boolean } {
  try {
    return cut(value, budget, { ...DEFAULT_FLOORS, ...floors });
  } finally {
    longStrings = new Map();
    objectKeys = new WeakMap();
  }
}

function cut(value: unknown, budget: number, floor: CutFloors): { value: unknown; cut: boolean } {
  const limits: Limits = {
    stringBytes: Number.POSITIVE_INFINITY,
    items: Number.POSITIVE_INFINITY,
    keys: Number.POSITIVE_INFINITY,
    depth: Number.POSITIVE_INFINITY,
  };
  let turn = 0;
  let last: { dimension: Dimension; failed: number } | undefined;
  for (let first = true;; first = false) {
    const seen: Seen = { stringBytes: 0, items: 0, keys: 0, depth: 0 };
    if (fits(value, limits, budget, seen)) {
      if (first) return { value, cut: false };
      if (last !== undefined) refine(value, limits, budget, last);
      return { value: built(value, limits), cut: true };
    }
    // What this rendering met bounds the next one's limits: no pass is spent
    // above it (nor above the budget, for what it did not reach).
    limits.stringBytes = Math.min(limits.stringBytes, seen.stringBytes || budget, budget);
    limits.items = Math.min(limits.items, seen.items || budget, budget);
    limits.keys = Math.min(limits.keys, seen.keys || budget, budget);
    // Strings and items in turn, as long as either still cuts something;
    // keys only then: a list keeps whole records rather than all of them in part.
    const turns: Dimension[] = [];
    if (limits.stringBytes > floor.stringBytes) turns.push("stringBytes");
    if (seen.items > 0 && limits.items > 0) turns.push("items");
    const dimension = turns[turn++ % Math.max(1, turns.length)] ??
      (limits.keys > floor.keys ? "keys" : undefined);
    if (dimension !== undefined) {
      const failed = limits[dimension];
      const minimum = dimension === "items" ? 0 : floor[dimension];
      limits[dimension] = Math.max(minimum, Math.floor(failed / 2));
      last = { dimension, failed };
    } else if (limits.depth > floor.depth) {
      limits.depth = Math.max(floor.depth, Math.min(limits.depth, seen.depth, MAX_SHOWN_DEPTH) - 1);
      last = undefined;
    } else {
      const whole = typeof value === "object" && value !== null
        ? summary(value)
        : cutMarker(`a ${typeof value} of ${jsonBytes(value)} bytes`);
      return { value: whole, cut: true };
    }
  }
}

/**
 * The last limit halved was too tight by up to half: raised, in `limits`, to
 * the most that still fits, found between the two within a few passes.
 */
function refine(
  value: unknown,
  limits: Limits,
  budget: number,
  last: { dimension: Dimension; failed: number },
): void {
  let low = limits[last.dimension];
  let high = last.failed;
  for (let pass = 0; pass < REFINE_PASSES && high - low > 1; pass++) {
    const middle = Math.floor((low + high) / 2);
    const seen = { stringBytes: 0, items: 0, keys: 0, depth: 0 };
    if (fits(value, { ...limits, [last.dimension]: middle }, budget, seen)) low = middle;
    else high = middle;
  }
  limits[last.dimension] = low;
}

/**
 * `text` within `bytes` UTF-8 bytes of JSON, its head kept and ended with
 * `… [N more bytes]` when it is cut: always a string, however small the
 * room (then only the marker).
 */
export function cutText(text: string, bytes: number): string {
  if (stringBytes(text) <= bytes) return text;
  const whole = bytesOf(text);
  longStrings = new Map();
  // Its quotes and the marker first; escapes may make the head's JSON longer, then it halves.
  let room = Math.max(0, bytes - 2 - utf8Bytes(`… [${whole} more bytes]`));
  for (;;) {
    const { read, written } = encoder.encodeInto(text, new Uint8Array(room));
    const shown = `${text.slice(0, read)}… [${whole - written} more bytes]`;
    if (room === 0 || stringBytes(shown) <= bytes) return shown;
    room = Math.floor(room / 2);
  }
}

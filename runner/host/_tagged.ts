/**
 * The host side of the tagged value form whose vocabulary
 * `runner/sandbox/tags.ts` defines for both sides: rebuilds the values a program handed to
 * `invoke` or returned, so that `toJson` on the host refuses them with the
 * right path; and renders replies, whose only non-JSON values are bigints.
 *
 * What arrives here was written by the sandbox, so it is decoded as untrusted
 * input: an unknown tag or a malformed node is a fault, never a throw. What it
 * checks is the tagged form alone (the frame is readable); whether a call's
 * arguments may be sent is the harness's one check. Each node costs a constant
 * (a tag's own text aside: digits, base64, names), so decoding a frame is
 * linear in its bytes however many tags it holds.
 *
 * @module
 */

import { type JsonValue, MAX_JSON_DEPTH } from "../../codec/json.ts";
import { err, ok, type Result } from "../../codec/result.ts";
import { reportValue } from "../../codec/report_value.ts";
import { TAG, TAGS, UNREPRESENTABLE } from "../sandbox/tags.ts";

/** The deepest encoded tree accepted; the sandbox stays far below it. */
export const MAX_ENCODED_DEPTH = 1024;

/**
 * The shallowest depth a `too_deep` tag is accepted at: one past
 * `MAX_JSON_DEPTH`, which is where the sandbox's prelude writes every one (at
 * its own limit, 257 levels). There the tag's container is as deep as
 * `toJson` refuses, so arguments holding it are refused with that
 * container's path whatever the tag becomes; a tag any shallower is forged,
 * and its frame malformed.
 */
export const MIN_TOO_DEEP_DEPTH: number = MAX_JSON_DEPTH + 1;

class Malformed {
  constructor(readonly message: string) {}
}

function fail(message: string): never {
  throw new Malformed(message);
}

type Record_ = Record<string, unknown>;

function define(target: Record_, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function named<T extends new () => object>(name: string, make: () => T): T {
  // A class made elsewhere is not named by the key it is stored under, so name it.
  const made = make();
  Object.defineProperty(made, "name", { value: name, configurable: true });
  return made;
}

function fromBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    return fail("its binary data is not base64");
  }
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function text(node: Record_, key: string): string {
  const value = node[key];
  if (typeof value !== "string") fail(`its "${key}" is not a string`);
  return value;
}

function list(node: Record_, key: string): unknown[] {
  const value = node[key];
  if (!Array.isArray(value)) fail(`its "${key}" is not an array`);
  return value;
}

function rebuild(node: unknown, stack: unknown[]): unknown {
  if (stack.length > MAX_ENCODED_DEPTH) fail(`it nests deeper than ${MAX_ENCODED_DEPTH}`);
  if (typeof node !== "object" || node === null) {
    if (typeof node === "number" && !Number.isFinite(node)) fail("it holds a non-finite number");
    return node;
  }
  if (Array.isArray(node)) {
    const out: unknown[] = [];
    stack.push(out);
    for (const item of node) out.push(rebuild(item, stack));
    stack.pop();
    return out;
  }
  const record = node as Record_;
  if (!Object.hasOwn(record, TAG)) {
    const out: Record_ = {};
    stack.push(out);
    for (const key of Object.keys(record)) define(out, key, rebuild(record[key], stack));
    stack.pop();
    return out;
  }
  return rebuildTagged(record, stack);
}

function rebuildTagged(node: Record_, stack: unknown[]): unknown {
  const tag = node[TAG];
  switch (tag) {
    case TAGS.bigint: {
      const digits = text(node, "v");
      if (!/^-?\d{1,400}$/.test(digits)) fail("its bigint is not an integer");
      return BigInt(digits);
    }
    case TAGS.undefined:
      return undefined;
    case TAGS.number: {
      const value = text(node, "v");
      if (value === "NaN") return NaN;
      if (value === "Infinity") return Infinity;
      if (value === "-Infinity") return -Infinity;
      return fail("its number is not NaN or an infinity");
    }
    case TAGS.function: {
      const name = String(node.name ?? "");
      return named(name, () => class {});
    }
    case TAGS.symbol:
      return Symbol(String(node.v ?? ""));
    case TAGS.symbol_keys:
      return { [Symbol("key")]: true };
    case TAGS.too_deep: {
      // Not rebuilt as the nesting it stands for: a marker, whose container
      // toJson already refuses (see MIN_TOO_DEEP_DEPTH), costs what its tag does.
      if (stack.length < MIN_TOO_DEEP_DEPTH) {
        fail(
          `its too_deep tag sits at depth ${stack.length}; the sandbox writes one only at ` +
            `depth ${MIN_TOO_DEEP_DEPTH} or deeper`,
        );
      }
      return { [UNREPRESENTABLE]: `nested deeper than ${MAX_JSON_DEPTH} levels (MAX_JSON_DEPTH)` };
    }
    case TAGS.unreadable: {
      const message = String(node.message ?? "");
      const out: Record_ = {};
      Object.defineProperty(out, "value", {
        enumerable: true,
        get(): never {
          throw new Error(message);
        },
      });
      return out;
    }
    case TAGS.cycle: {
      const up = node.up;
      if (typeof up !== "number" || !Number.isInteger(up) || up < 1 || up > stack.length) {
        fail("its cycle points nowhere");
      }
      return stack[stack.length - up];
    }
    case TAGS.date: {
      const time = node.v;
      if (time !== null && typeof time !== "number") fail(`its "v" is not a number`);
      return new Date(time === null ? NaN : time);
    }
    case TAGS.binary: {
      const bytes = fromBase64(text(node, "base64"));
      return node.name === "ArrayBuffer" ? bytes.buffer : bytes;
    }
    case TAGS.object: {
      const out: Record_ = {};
      stack.push(out);
      for (const entry of list(node, "entries")) {
        if (!Array.isArray(entry) || typeof entry[0] !== "string") fail("an entry is malformed");
        define(out, entry[0], rebuild(entry[1], stack));
      }
      stack.pop();
      return out;
    }
    case TAGS.map: {
      const out = new Map<unknown, unknown>();
      stack.push(out);
      for (const entry of list(node, "entries")) {
        if (!Array.isArray(entry) || entry.length !== 2) fail("a map entry is malformed");
        out.set(rebuild(entry[0], stack), rebuild(entry[1], stack));
      }
      stack.pop();
      return out;
    }
    case TAGS.set: {
      const out = new Set<unknown>();
      stack.push(out);
      for (const item of list(node, "values")) out.add(rebuild(item, stack));
      stack.pop();
      return out;
    }
    case TAGS.instance: {
      const name = String(node.name ?? "");
      if (!Array.isArray(node.array)) return new (named(name, () => class {}))();
      const Subclass = named(name, () => class extends Array<unknown> {});
      const out = new Subclass();
      stack.push(out);
      for (const item of node.array) out.push(rebuild(item, stack));
      stack.pop();
      return out;
    }
    default:
      return fail(`its tag ${JSON.stringify(String(tag)).slice(0, 40)} is unknown`);
  }
}

// Whether a parsed tree holds no tag, no number past JSON's and no nesting
// past the limit: what `rebuild` would return unchanged. It allocates nothing.
function untagged(node: unknown, depth: number): boolean {
  if (typeof node !== "object" || node === null) {
    return typeof node !== "number" || Number.isFinite(node);
  }
  if (depth >= MAX_ENCODED_DEPTH) return false;
  if (Array.isArray(node)) {
    for (const item of node) if (!untagged(item, depth + 1)) return false;
    return true;
  }
  if (Object.hasOwn(node, TAG) || Object.getPrototypeOf(node) !== Object.prototype) return false;
  const record = node as Record_;
  for (const key in record) {
    if (Object.hasOwn(record, key) && !untagged(record[key], depth + 1)) return false;
  }
  return true;
}

/**
 * Rebuilds a value from the sandbox's tagged form. A malformed tree is a
 * fault naming what is wrong. A `too_deep` tag becomes a marker,
 * `{ "$unrepresentable": "nested deeper than 256 levels (MAX_JSON_DEPTH)" }`,
 * accepted only {@linkcode MIN_TOO_DEEP_DEPTH} levels deep or more, where
 * `toJson` refuses the arguments holding it.
 */
export function decodeTagged(node: unknown): Result<unknown, string> {
  // A tree with no tag, as most arguments are, is already what rebuilding
  // would copy it into (JSON.parse gives `"__proto__"` an own property too).
  if (untagged(node, 0)) return ok(node);
  try {
    return ok(rebuild(node, []));
  } catch (error) {
    if (error instanceof Malformed) return err(`the value is malformed: ${error.message}`);
    if (error instanceof RangeError) return err("the value nests too deeply");
    return err(`the value is malformed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Rebuilds a program's result from the sandbox's tagged form as a value a
 * report can show: JSON, exact bigints, and, for anything else that still
 * arrives (the sandbox's prelude turns such values into markers, but a
 * program can post a frame of its own), a visible marker naming it,
 * `{ "$unrepresentable": "instance of Map (2 entries)" }`, never an empty
 * object.
 */
export function decodeResult(node: unknown): Result<unknown, string> {
  const value = decodeTagged(node);
  return value.ok ? ok(reportValue(value.value)) : value;
}

// JSON.stringify asks this of every value before it renders it, so the
// reply is tagged as it is written, with no tree copied for the purpose.
function tagging(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return { [TAG]: TAGS.bigint, v: value.toString() };
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  if (!Object.hasOwn(value, TAG)) return value;
  const record = value as Record_;
  return { [TAG]: TAGS.object, entries: Object.keys(record).map((key) => [key, record[key]]) };
}

/**
 * Renders a JSON value as the sandbox reads it, in one pass: JSON text with
 * bigints tagged, and an object that has the tag key itself wrapped, so that
 * the sandbox rebuilds it exactly.
 */
export function taggedText(value: JsonValue): string {
  return JSON.stringify(value, tagging);
}

/**
 * A server's schema made safe to interpret: a copy for the validator in which
 * every part that could run without bound, throw, or reach outside the schema
 * is taken out or guarded, each with a sentence saying what is not checked.
 *
 * - `format` is an annotation (2020-12's default) and goes; `pattern`,
 *   `minLength` and `maxLength` go into one string check of ours per node
 *   (a `format` the validator calls), which runs only patterns
 *   {@linkcode patternCost} calls bounded and charges what it runs.
 * - A `$ref` that resolves to nothing in the schema goes (remote schemas are
 *   never fetched); `$recursiveRef` and `$dynamicRef` go.
 * - A `patternProperties` pattern that is not linear goes, with the
 *   `additionalProperties` beside it; `uniqueItems` goes when a value's arrays
 *   are too long for its pairwise comparison (the `relaxed` copy).
 * - Boolean subschemas become objects, and every object carries a counter
 *   the validator trips once per evaluation: `@cfworker/json-schema` reads
 *   `$recursiveAnchor` of each schema it evaluates, so an accessor there
 *   charges the evaluation to the current check's budget, and throws
 *   {@linkcode Abort} past it.
 *
 * Taking a constraint out only widens what passes, except under `not`, `if`,
 * `oneOf` and a `contains` bounded by `maxContains`, where it could fail a
 * good value: there the whole keyword goes instead, up to the outermost such
 * keyword, through `$ref`s too.
 *
 * @module
 */

import { isJsonObject, type JsonObject, type JsonValue } from "../codec/json.ts";
import { dereference, type Schema, type SchemaDraft } from "./_json_schema.ts";
import { patternCost } from "./_regex.ts";
import { type Edge, inPlaceCycle, longestInPlace, settleNegatives } from "./_schema_graph.ts";

/** The most JSON nodes a schema may hold and still be checked. */
export const MAX_CHECKED_SCHEMA_NODES = 50_000;

/** The deepest a schema's JSON may nest and still be checked. */
export const MAX_CHECKED_SCHEMA_DEPTH = 128;

/** Why a check stopped before its verdict. */
export class Abort extends Error {}

/** What the current check may still spend, shared by a prepared schema's counters. */
export type Meter = {
  steps: number;
  limit: number;
  /** The most keys of one object, and the most items of one array, in the value. */
  keys: number;
  items: number;
};

/** One node's string check: the constraints it took over from the schema. */
export type StringCheck = {
  name: string;
  pointer: string;
  pattern?: { source: string; regex: RegExp; degree: number };
  minLength?: number;
  maxLength?: number;
  /** Under `not`, `if`, `oneOf`: skipping it could fail a good value, so it aborts instead. */
  negative: boolean;
};

/** A schema ready for the validator. */
export type CheckedSchema = {
  root: Schema;
  lookup: Record<string, Schema | boolean>;
  draft: SchemaDraft;
  /** What of the schema is not checked, whatever the value. */
  unchecked: string[];
  usesUniqueItems: boolean;
  checks: ReadonlyMap<string, StringCheck>;
  /** Nodes that were `false` in the schema (now `{ not: {} }`). */
  fromFalse: WeakSet<object>;
  meter: Meter;
  /** The longest chain of subschemas evaluated at one place of a value. */
  inPlaceDepth: number;
};

const SCHEMA = new Set([
  "additionalItems",
  "unevaluatedItems",
  "items",
  "contains",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
const SCHEMA_LIST = new Set(["prefixItems", "items", "allOf", "anyOf", "oneOf"]);
const SCHEMA_MAP = new Set([
  "$defs",
  "definitions",
  "properties",
  "patternProperties",
  "dependentSchemas",
]);
const IN_PLACE = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else"]);
const DROPPED = new Set(["format", "$recursiveAnchor", "$dynamicAnchor", "$comment"]);

const isNumber = (value: JsonValue) => typeof value === "number" || typeof value === "bigint";
const isNames = (value: JsonValue) =>
  Array.isArray(value) && value.every((name) => typeof name === "string");
const NUMBER: Shape = [isNumber, "a number"];
const OBJECT: Shape = [isJsonObject, "an object"];
const LIST: Shape = [Array.isArray, "a list"];
type Shape = [test: (value: JsonValue) => boolean, words: string];

/**
 * What a keyword's value must be for the validator to read it as JSON Schema
 * means it. One of another kind (`"required": "a"`, which a validator would
 * read as the names "a", or a string `minimum` compared as text) is left out
 * and said to be unchecked, as the surface and the module read it as no rule.
 */
const SHAPES: ReadonlyMap<string, Shape> = new Map([
  ["required", [isNames, "a list of names"]],
  ["type", [(value) => typeof value === "string" || isNames(value), "a type or a list of types"]],
  ["enum", LIST],
  ["allOf", LIST],
  ["anyOf", LIST],
  ["oneOf", LIST],
  ["prefixItems", LIST],
  ["properties", OBJECT],
  ["patternProperties", OBJECT],
  ["dependentSchemas", OBJECT],
  ["dependencies", OBJECT],
  ["$defs", OBJECT],
  ["definitions", OBJECT],
  ["dependentRequired", [
    (value) => isJsonObject(value) && Object.values(value).every((names) => isNames(names)),
    "an object of lists of names",
  ]],
  ["multipleOf", [(value) => isNumber(value) && value > 0, "a number above 0"]],
  ["minimum", NUMBER],
  ["maximum", NUMBER],
  ["exclusiveMinimum", [(value) => isNumber(value) || typeof value === "boolean", "a number"]],
  ["exclusiveMaximum", [(value) => isNumber(value) || typeof value === "boolean", "a number"]],
  ["minItems", NUMBER],
  ["maxItems", NUMBER],
  ["minProperties", NUMBER],
  ["maxProperties", NUMBER],
  ["minContains", NUMBER],
  ["maxContains", NUMBER],
  ["uniqueItems", [(value) => typeof value === "boolean", "true or false"]],
]);

/** The draft a schema's `$schema` names, or `fallback`. */
export function draftOf(schema: JsonValue, fallback: SchemaDraft): SchemaDraft {
  const declared = isJsonObject(schema) ? schema.$schema : undefined;
  if (typeof declared !== "string") return fallback;
  if (/draft-0[67]/.test(declared)) return "7";
  if (/draft-0[34]/.test(declared)) return "4";
  if (declared.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** How many JSON nodes a value holds and how deep it nests, stopping past the limits. */
function size(value: JsonValue): { nodes: number; depth: number } {
  let nodes = 0;
  let depth = 0;
  const stack: [JsonValue, number][] = [[value, 1]];
  while (stack.length > 0 && nodes <= MAX_CHECKED_SCHEMA_NODES) {
    const [node, level] = stack.pop() as [JsonValue, number];
    nodes++;
    depth = Math.max(depth, level);
    if (depth > MAX_CHECKED_SCHEMA_DEPTH) break;
    if (Array.isArray(node)) { for (const each of node) stack.push([each, level + 1]); }
    else if (isJsonObject(node)) {
      for (const key of Object.keys(node)) stack.push([node[key] as JsonValue, level + 1]);
    }
  }
  return { nodes, depth };
}

// Plain objects, not prototype-less ones: the validator reads them about twice
// as fast (BENCHMARKS.md, "Checking values"). `__proto__` stays an own key.
function put(object: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else object[key] = value;
}

function escape(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function copyValue(value: JsonValue): JsonValue {
  if (typeof value === "bigint") return Number(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyValue);
  const out: JsonObject = {};
  for (const key of Object.keys(value)) put(out, key, copyValue(value[key] as JsonValue));
  return out;
}

/**
 * Prepares `raw` for the validator, or says why it cannot be checked at all.
 * `relaxed` leaves `uniqueItems` out, for values whose arrays are too long.
 */
export function checkedSchema(
  raw: JsonValue,
  draft: SchemaDraft,
  relaxed: boolean,
  nameCheck: (check: Omit<StringCheck, "name">) => string | undefined,
): CheckedSchema | string {
  const { nodes, depth } = size(raw);
  if (nodes > MAX_CHECKED_SCHEMA_NODES) {
    return `the schema holds more than ${MAX_CHECKED_SCHEMA_NODES} JSON nodes`;
  }
  if (depth > MAX_CHECKED_SCHEMA_DEPTH) {
    return `the schema nests deeper than ${MAX_CHECKED_SCHEMA_DEPTH} levels`;
  }
  const unchecked: string[] = [];
  const edges = new Map<object, Edge[]>();
  const pointers = new Map<object, string>();
  const loosened = new Set<object>();
  const pending: { node: JsonObject; check: Omit<StringCheck, "name" | "negative"> }[] = [];
  const fromFalse = new WeakSet<object>();
  let usesUniqueItems = false;

  const copy = (schema: JsonValue, pointer: string): JsonObject => {
    const node: JsonObject = {};
    pointers.set(node, pointer);
    edges.set(node, []);
    if (schema === true) return node;
    if (!isJsonObject(schema)) {
      // `false` accepts nothing; anything else is no schema, and is not checked.
      if (schema !== false) {
        unchecked.push(`the schema at ${pointer || "/"}, which is neither an object nor a boolean`);
        loosened.add(node);
        return node;
      }
      const empty: JsonObject = {};
      pointers.set(empty, `${pointer}/not`);
      edges.set(empty, []);
      node.not = empty;
      (edges.get(node) as Edge[]).push({ to: empty, keyword: "not", inPlace: true });
      fromFalse.add(node);
      return node;
    }
    const link = (child: JsonObject, keyword: string) =>
      (edges.get(node) as Edge[]).push({ to: child, keyword, inPlace: IN_PLACE.has(keyword) });
    const check: Omit<StringCheck, "name" | "negative"> = { pointer };
    let droppedPattern = false;
    for (const key of Object.keys(schema)) {
      const value = schema[key] as JsonValue;
      const at = `${pointer}/${escape(key)}`;
      if (DROPPED.has(key)) continue;
      const shape = SHAPES.get(key);
      if (shape !== undefined && !shape[0](value)) {
        unchecked.push(`the "${key}" at ${at}, which is not ${shape[1]}`);
        loosened.add(node);
        continue;
      }
      if (key === "$recursiveRef" || key === "$dynamicRef") {
        unchecked.push(`the "${key}" at ${at || "/"}`);
        loosened.add(node);
      } else if (key === "pattern") {
        const cost = typeof value === "string" ? patternCost(value) : undefined;
        if (cost?.kind === "bounded" && typeof value === "string") {
          check.pattern = { source: value, regex: new RegExp(value, "u"), degree: cost.degree };
        } else {
          const why = cost?.kind === "unsafe" ? cost.reason : "it is not a string";
          unchecked.push(`the pattern at ${at} (${why})`);
          loosened.add(node);
        }
      } else if (key === "minLength" || key === "maxLength") {
        if (typeof value === "number") check[key] = value;
      } else if (key === "uniqueItems" && relaxed && value === true) {
        unchecked.push(`"uniqueItems" at ${at}, for an array this long`);
        loosened.add(node);
      } else if (key === "patternProperties" && isJsonObject(value)) {
        const kept: JsonObject = {};
        for (const pattern of Object.keys(value)) {
          const cost = patternCost(pattern);
          if (cost.kind === "bounded" && cost.degree === 1) {
            const child = copy(value[pattern] as JsonValue, `${at}/${escape(pattern)}`);
            put(kept, pattern, child);
            link(child, key);
          } else {
            unchecked.push(
              `the patternProperties key ${JSON.stringify(pattern)} at ${pointer || "/"}`,
            );
            loosened.add(node);
            droppedPattern = true;
          }
        }
        put(node, key, kept);
      } else if (key === "dependencies" && isJsonObject(value)) {
        const out: JsonObject = {};
        for (const name of Object.keys(value)) {
          const entry = value[name] as JsonValue;
          if (Array.isArray(entry)) put(out, name, copyValue(entry));
          else {
            const child = copy(entry, `${at}/${escape(name)}`);
            put(out, name, child);
            link(child, "dependentSchemas");
          }
        }
        put(node, key, out);
      } else if (SCHEMA_MAP.has(key) && isJsonObject(value)) {
        const out: JsonObject = {};
        for (const name of Object.keys(value)) {
          const child = copy(value[name] as JsonValue, `${at}/${escape(name)}`);
          put(out, name, child);
          if (key !== "$defs" && key !== "definitions") link(child, key);
        }
        put(node, key, out);
      } else if (SCHEMA_LIST.has(key) && Array.isArray(value)) {
        put(
          node,
          key,
          value.map((member, i) => {
            const child = copy(member, `${at}/${i}`);
            link(child, key);
            return child;
          }),
        );
      } else if (SCHEMA.has(key)) {
        const child = copy(value, at);
        put(node, key, child);
        link(child, key);
      } else if (key === "$ref" && typeof value !== "string") {
        unchecked.push(`the "$ref" at ${at}, which is not a string`);
        loosened.add(node);
      } else put(node, key, copyValue(value));
      if (key === "uniqueItems" && value === true) usesUniqueItems = true;
    }
    if (droppedPattern) {
      // Keys the dropped pattern would have covered must not meet these instead.
      for (const keyword of ["additionalProperties", "unevaluatedProperties"]) {
        if (!Object.hasOwn(node, keyword)) continue;
        delete node[keyword];
        edges.set(node, (edges.get(node) as Edge[]).filter((edge) => edge.keyword !== keyword));
        unchecked.push(`the "${keyword}" at ${pointer || "/"}, beside that key`);
      }
    }
    if (
      check.pattern !== undefined || check.minLength !== undefined || check.maxLength !== undefined
    ) {
      pending.push({ node, check });
    }
    return node;
  };

  if (raw !== true && raw !== false && !isJsonObject(raw)) {
    return "the schema is neither an object nor a boolean";
  }
  const root = copy(raw, "");
  let lookup: Record<string, Schema | boolean>;
  try {
    lookup = dereference(root as unknown as Schema);
  } catch (error) {
    return `its "$id"s cannot be resolved (${error instanceof Error ? error.message : error})`;
  }
  for (const [node, pointer] of pointers) {
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref !== "string") continue;
    const uri = (node as { __absolute_ref__?: string }).__absolute_ref__ ?? ref;
    const target = lookup[uri];
    if (target === undefined || typeof target !== "object") {
      delete (node as JsonObject).$ref;
      unchecked.push(
        `the $ref ${JSON.stringify(ref.slice(0, 120))} at ${pointer || "/"}, which names nothing ` +
          "in the schema (remote schemas are never fetched)",
      );
      loosened.add(node);
    } else (edges.get(node) as Edge[]).push({ to: target, keyword: "$ref", inPlace: true });
  }
  const cycle = inPlaceCycle(edges, pointers);
  if (cycle !== undefined) {
    return `the schema at ${cycle || "/"} refers to itself without descending into the value`;
  }
  const inPlaceDepth = longestInPlace(edges);
  const negative = settleNegatives(edges, loosened, pointers, unchecked);
  const checks = new Map<string, StringCheck>();
  for (const { node, check } of pending) {
    const name = nameCheck({ ...check, negative: negative.has(node) });
    if (name === undefined) {
      unchecked.push(`the string rules at ${check.pointer || "/"} (too many distinct ones)`);
      continue;
    }
    node.format = name;
    checks.set(name, { ...check, name, negative: negative.has(node) });
  }
  const meter: Meter = { steps: 0, limit: 0, keys: 0, items: 0 };
  for (const node of pointers.keys()) installCounter(node as JsonObject, meter);
  return {
    root: root as unknown as Schema,
    lookup,
    draft,
    unchecked,
    usesUniqueItems,
    checks,
    fromFalse,
    meter,
    inPlaceDepth,
  };
}

// The accessor the validator trips on every evaluation of `node`.
function installCounter(node: JsonObject, meter: Meter): void {
  const count = (key: string) => {
    const value = node[key];
    return Array.isArray(value)
      ? value.length
      : isJsonObject(value)
      ? Object.keys(value).length
      : 0;
  };
  const fixed = 1 + count("properties") + count("required") + count("allOf") + count("anyOf") +
    count("oneOf") + count("prefixItems") + count("dependentRequired") +
    (Object.hasOwn(node, "enum") || Object.hasOwn(node, "const")
      ? size(node.enum ?? node.const ?? null).nodes
      : 0);
  const patterns = count("patternProperties");
  const unique = node.uniqueItems === true;
  Object.defineProperty(node, "$recursiveAnchor", {
    enumerable: false,
    get() {
      meter.steps += fixed + patterns * meter.keys +
        (unique ? (meter.items * meter.items) / 16 : 0);
      if (meter.steps > meter.limit) {
        throw new Abort(`the check took more than ${meter.limit} steps`);
      }
      return undefined;
    },
  });
}

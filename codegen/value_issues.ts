/**
 * The validator's findings as sentences a model can act on: the JSON path of
 * the value (`$.a[3].b`, as in `codec/interchange.ts`), the rule it broke,
 * and what the schema asks for instead.
 *
 * @module
 */

import { isJsonObject, type JsonValue } from "../codec/json.ts";
import { pathStep } from "../codec/interchange.ts";
import type { OutputUnit } from "./_json_schema.ts";
import type { CheckedSchema } from "./checked_schema.ts";
import { quoteValue } from "./_notes.ts";

/** One broken rule: where, which, and what to do. */
export type ValueIssue = { path: string; rule: string; message: string };

/** The most issues one error lists. */
export const MAX_VALUE_ISSUES = 8;

// Keywords that only say a part below them failed.
const CONTAINERS = new Set([
  "properties",
  "patternProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "dependentSchemas",
  "dependencies",
  "if",
]);

const ARTICLES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  object: "an object",
  array: "an array",
  boolean: "a boolean",
  null: "null",
};

function segments(pointer: string): string[] {
  const body = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (body === "") return [];
  return body.slice(1).split("/").map((raw) => {
    let text = raw;
    try {
      text = decodeURIComponent(raw);
    } catch {
      // Read as written.
    }
    return text.replaceAll("~1", "/").replaceAll("~0", "~");
  });
}

/** The `$.a[3].b` path of an instance pointer, reading the value to tell indexes from keys. */
export function jsonPath(value: JsonValue, pointer: string, extra?: string): string {
  let path = "$";
  let node: JsonValue | undefined = value;
  for (const segment of [...segments(pointer), ...(extra === undefined ? [] : [extra])]) {
    if (Array.isArray(node) && /^(0|[1-9][0-9]*)$/.test(segment)) {
      path += `[${segment}]`;
      node = node[Number(segment)];
    } else {
      path = pathStep(path, segment);
      node = isJsonObject(node) && Object.hasOwn(node, segment) ? node[segment] : undefined;
    }
  }
  return path;
}

// The schema node an evaluation path names, following `$ref`s as the validator did.
function schemaAt(checked: CheckedSchema, location: string): unknown {
  let node: unknown = checked.root;
  for (const segment of segments(location)) {
    if (node === null || typeof node !== "object") return undefined;
    if (segment === "$ref") {
      const uri = (node as { __absolute_ref__?: string }).__absolute_ref__;
      node = uri === undefined ? undefined : checked.lookup[uri];
    } else node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function list(values: readonly JsonValue[]): string {
  const shown = values.slice(0, 10).map((value) => quoteValue(value));
  return shown.join(", ") + (values.length > 10 ? `, … (${values.length} in all)` : "");
}

function typeName(value: JsonValue | undefined): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number" || typeof value === "bigint") {
    return Number.isInteger(Number(value)) ? "an integer" : "a number";
  }
  return typeof value === "string" ? "a string" : typeof value;
}

function valueAt(value: JsonValue, pointer: string): JsonValue | undefined {
  let node: JsonValue | undefined = value;
  for (const segment of segments(pointer)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isJsonObject(node)) node = node[segment];
    else return undefined;
  }
  return node;
}

function stringProblem(checked: CheckedSchema, name: unknown, text: string) {
  const check = typeof name === "string" ? checked.checks.get(name) : undefined;
  if (check === undefined) return { rule: "format", says: "must match its format" };
  const length = [...text].length;
  if (check.minLength !== undefined && length < check.minLength) {
    return {
      rule: "minLength",
      says: `must be at least ${check.minLength} characters long (it is ${length})`,
    };
  }
  if (check.maxLength !== undefined && length > check.maxLength) {
    return {
      rule: "maxLength",
      says: `must be at most ${check.maxLength} characters long (it is ${length})`,
    };
  }
  return {
    rule: "pattern",
    says: `must match the pattern ${JSON.stringify(check.pattern?.source ?? "")}`,
  };
}

/** One validator finding as an issue, or `undefined` for one that only wraps others. */
export function issueOf(
  checked: CheckedSchema,
  value: JsonValue,
  unit: OutputUnit,
): ValueIssue | undefined {
  const keyword = unit.keyword;
  if (CONTAINERS.has(keyword)) return undefined;
  const at = valueAt(value, unit.instanceLocation);
  const path = jsonPath(value, unit.instanceLocation);
  const rule = schemaAt(checked, unit.keywordLocation);
  const owner = schemaAt(checked, unit.keywordLocation.replace(/\/[^/]*$/, ""));
  const issue = (name: string, says: string, where = path): ValueIssue => ({
    path: where,
    rule: name,
    message: `${where} ${says}`,
  });
  const quoted = /"((?:[^"\\]|\\.)*)"/.exec(unit.error)?.[1];
  switch (keyword) {
    case "type": {
      const names = (Array.isArray(rule) ? rule : [rule]).map((name) =>
        ARTICLES[String(name)] ?? String(name)
      ).join(" or ");
      return issue("type", `must be ${names}, not ${typeName(at)}`);
    }
    case "required":
      return issue(
        "required",
        "is required but missing; add it",
        jsonPath(value, unit.instanceLocation, quoted),
      );
    case "additionalProperties":
    case "unevaluatedProperties": {
      const where = jsonPath(value, unit.instanceLocation, quoted);
      return issue(
        keyword,
        `is not a property the schema allows here; remove it or check its name`,
        where,
      );
    }
    case "not":
      if (owner !== undefined && checked.fromFalse.has(owner as object)) {
        return issue("false", "is not allowed here; remove it");
      }
      return issue("not", "matches a shape the schema forbids here");
    case "const":
      return issue("const", `must be ${quoteValue(rule as JsonValue)}`);
    case "enum":
      return issue(
        "enum",
        `must be one of ${list(Array.isArray(rule) ? rule as JsonValue[] : [])}, not ${
          quoteValue(at ?? null)
        }`,
      );
    case "anyOf":
      return issue("anyOf", "matches none of the shapes its schema allows (anyOf)");
    case "oneOf":
      return issue(
        "oneOf",
        `must match exactly one of the shapes its schema lists (oneOf); ${
          /\((\d+) matches\)/.exec(unit.error)?.[1] ?? "none"
        } match`,
      );
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const exclusive = keyword.startsWith("exclusive") ||
        (isObjectWith(owner, `exclusive${keyword === "minimum" ? "Minimum" : "Maximum"}`, true));
      const low = keyword.toLowerCase().includes("minimum");
      const sign = low ? (exclusive ? ">" : ">=") : exclusive ? "<" : "<=";
      const bound = typeof rule === "number"
        ? rule
        : (owner as Record<string, unknown> | undefined)?.[low ? "minimum" : "maximum"];
      return issue(keyword, `must be ${sign} ${bound} (it is ${quoteValue(at ?? null)})`);
    }
    case "multipleOf":
      return issue("multipleOf", `must be a multiple of ${rule}`);
    case "minItems":
    case "maxItems":
      return issue(
        keyword,
        `must have ${keyword === "minItems" ? "at least" : "at most"} ${rule} items (it has ${
          Array.isArray(at) ? at.length : 0
        })`,
      );
    case "uniqueItems":
      return issue(
        "uniqueItems",
        `must not repeat an item (${unit.error.replace(/\.$/, "").toLowerCase()})`,
      );
    case "minProperties":
    case "maxProperties":
      return issue(
        keyword,
        `must have ${keyword === "minProperties" ? "at least" : "at most"} ${rule} properties`,
      );
    case "dependentRequired":
      return issue(
        "dependentRequired",
        unit.error.replace(/^Instance/, "has a property whose companion is missing:").replace(
          /\.$/,
          "",
        ),
      );
    case "propertyNames":
      return issue(
        "propertyNames",
        `has the property name ${JSON.stringify(quoted ?? "")}, which its schema does not allow`,
      );
    case "contains":
    case "minContains":
    case "maxContains":
      return issue(
        keyword,
        unit.error.replace(/\.$/, "").replace(/^Array/, "must hold the right items:"),
      );
    case "format": {
      const { rule: name, says } = stringProblem(checked, rule, typeof at === "string" ? at : "");
      return issue(name, says);
    }
    case "false":
      return issue("false", "is not allowed here; remove it");
    default:
      return issue(keyword, `breaks the schema's "${keyword}" (${unit.error.replace(/\.$/, "")})`);
  }
}

function isObjectWith(node: unknown, key: string, value: unknown): boolean {
  return node !== null && typeof node === "object" &&
    (node as Record<string, unknown>)[key] === value;
}

// An issue inside an alternative of an anyOf or oneOf says what one
// alternative wanted; the union's own issue comes first.
function depthInUnion(unit: OutputUnit): number {
  return (unit.keywordLocation.match(/\/(anyOf|oneOf)\/\d+/g) ?? []).length;
}

/** The issues of a failed check, the most direct first, at most {@linkcode MAX_VALUE_ISSUES}. */
export function issuesOf(
  checked: CheckedSchema,
  value: JsonValue,
  units: readonly OutputUnit[],
): ValueIssue[] {
  const found = units
    .map((unit, order) => ({ unit, order, issue: issueOf(checked, value, unit) }))
    .filter((each): each is { unit: OutputUnit; order: number; issue: ValueIssue } =>
      each.issue !== undefined
    );
  found.sort((a, b) => depthInUnion(a.unit) - depthInUnion(b.unit) || a.order - b.order);
  const seen = new Set<string>();
  // A property the schema does not allow is said once, not again as `false`.
  const extra = new Set(
    found.filter(({ issue }) => issue.rule.endsWith("Properties")).map(({ issue }) => issue.path),
  );
  const out: ValueIssue[] = [];
  for (const { issue } of found) {
    if (seen.has(issue.message) || (issue.rule === "false" && extra.has(issue.path))) continue;
    seen.add(issue.message);
    out.push(issue);
    if (out.length === MAX_VALUE_ISSUES) break;
  }
  return out;
}
